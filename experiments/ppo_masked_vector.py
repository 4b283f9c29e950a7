"""CleanRL-style masked PPO over the native vector env of Baohuang-v0, in one file.

    python experiments/ppo_masked_vector.py                      # jj rules, random opponents, about 2 minutes
    python experiments/ppo_masked_vector.py --total-timesteps 300000 --out runs/ppo_vec
    tensorboard --logdir runs

Read it top to bottom as CleanRL's ppo.py: the arguments, seeding, the vector env
(`gymnasium.make_vec("Baohuang-v0", vectorization_mode="vector_entry_point")`), an actor and a
critic, a rollout of num_steps x num_envs, GAE, clipped-surrogate minibatch updates and
CleanRL's TensorBoard names. What differs is what this env needs:

* Masking: the legal actions of every env are in `info["action_mask"]` (N, A); the actor's
  logits of illegal actions are set to -1e8 before the softmax (CleanRL's invalid action
  masking), so they are never sampled, and the entropy is summed over the legal actions only.
  The env is made with `illegal_action="raise"`: an illegal action would stop the run.
* Autoreset: the env declares its mode in `metadata["autoreset_mode"]`. Under NEXT_STEP (the
  default) the step after an episode ends is a reset step: its observation is the ended
  episode's last, its action is ignored and its reward is 0, so that row is no decision and is
  left out of the loss, the advantage normalisation and the explained variance (Gymnasium's
  advice for next-step autoreset). Under SAME_STEP every row is a decision.

Progress lines go to stdout, TensorBoard events to --out. At the end the trained policy, the
policy it started from and uniformly random legal play each play the same held-out deals
(--eval-episodes envs seeded from --eval-seed, the first episode of each) and a JSON line
reports their mean returns, win rates and the paired difference trained - initial.
"""

import argparse
import ast
import copy
import dataclasses
import itertools
import json
import random
import time
from dataclasses import dataclass
from pathlib import Path

import gymnasium as gym
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from gymnasium.vector import AutoresetMode
from torch.distributions.categorical import Categorical
from torch.utils.tensorboard import SummaryWriter

import baohuang_env  # noqa: F401  (registers Baohuang-v0 and its vector entry point)


@dataclass
class Args:
    """The run's settings; each is a command-line option (`seed` -> --seed, `anneal_lr` -> --anneal-lr)."""

    seed: int = 1
    """seed of the envs (env i gets seed + i), of torch and of the minibatch shuffles"""
    threads: int = 1
    """torch CPU threads"""
    cuda: bool = False
    """run the network on CUDA when available (the env is CPU-bound; the network is small)"""
    out: str = ""
    """folder of the TensorBoard events (default runs/ppo_masked_vector__SEED__TIME)"""

    # the env
    preset: str = "jj"
    """rules preset"""
    opponents: str = "random"
    """the four other seats' agent (a registered name: random, autoplay, greedy, heuristic)"""
    learner_seat: str = "random"
    """the learner's seat: 0..4 or random (drawn each episode)"""
    reward_mode: str = "score"
    """score (the learner's deal score) or win (+1/0/-1)"""
    reward_scale: float = 0.1
    """rewards are multiplied by this for training (the returns logged are unscaled)"""
    autoreset_mode: str = "next_step"
    """the vector env's autoreset mode: next_step or same_step"""

    # the algorithm
    total_timesteps: int = 200_000
    """env steps of the whole run (num_envs per vector step)"""
    learning_rate: float = 1e-3
    """Adam's learning rate"""
    num_envs: int = 64
    """games played at once"""
    num_steps: int = 64
    """vector steps per rollout"""
    anneal_lr: bool = True
    """anneal the learning rate linearly to 0"""
    gamma: float = 0.99
    """discount factor"""
    gae_lambda: float = 0.95
    """lambda of the generalized advantage estimate"""
    num_minibatches: int = 4
    """minibatches per epoch"""
    update_epochs: int = 4
    """epochs over each rollout"""
    norm_adv: bool = True
    """normalize the advantages within each minibatch"""
    clip_coef: float = 0.2
    """the surrogate clipping coefficient"""
    clip_vloss: bool = True
    """clip the value loss as PPO's paper does"""
    ent_coef: float = 0.01
    """coefficient of the entropy bonus"""
    vf_coef: float = 0.5
    """coefficient of the value loss"""
    max_grad_norm: float = 0.5
    """the gradients' global norm is clipped to this"""
    target_kl: float | None = None
    """stop an update's epochs once the approximate KL exceeds this (off by default)"""
    hidden: int = 128
    """units of the actor's and the critic's two hidden layers"""

    # the final evaluation
    eval_episodes: int = 512
    """held-out deals each policy plays at the end (0: no evaluation)"""
    eval_seed: int = 1_000_000
    """seed of the evaluation envs (env i gets eval_seed + i), apart from the training seeds"""


def parse_args(argv: list[str] | None = None) -> Args:
    """Args from the command line: one option per field, its docstring as the help."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    helps = _field_docs()
    for field in dataclasses.fields(Args):
        flag = "--" + field.name.replace("_", "-")
        if field.type is bool:
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=field.default,
                                help=helps[field.name])
        else:
            kind = float if field.type == float | None else field.type
            parser.add_argument(flag, type=kind, default=field.default,
                                help=f"{helps[field.name]} (default {field.default})")
    args = Args(**vars(parser.parse_args(argv)))
    if args.autoreset_mode not in ("next_step", "same_step"):
        parser.error(f"--autoreset-mode must be next_step or same_step, got {args.autoreset_mode!r}")
    if min(args.total_timesteps, args.num_envs, args.num_steps, args.num_minibatches, args.update_epochs) < 1:
        parser.error("--total-timesteps, --num-envs, --num-steps, --num-minibatches, --update-epochs must be positive")
    if args.eval_episodes == 1 or args.eval_episodes < 0:
        parser.error("--eval-episodes must be 0 (no evaluation) or at least 2 (a standard error needs two)")
    return args


def _field_docs() -> dict[str, str]:
    """The docstring under each field of Args (as tyro reads them), from this file's source."""
    tree = ast.parse(Path(__file__).read_text(encoding="utf-8"))
    body = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "Args").body
    docs = {}
    for node, after in itertools.pairwise(body):
        if isinstance(node, ast.AnnAssign) and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant):
            docs[node.target.id] = after.value.value
    return docs


def make_envs(args: Args, num_envs: int) -> gym.vector.VectorEnv:
    """The native vector env of Baohuang-v0 with the run's rules, opponents and autoreset mode."""
    seat = args.learner_seat if args.learner_seat == "random" else int(args.learner_seat)
    mode = AutoresetMode.NEXT_STEP if args.autoreset_mode == "next_step" else AutoresetMode.SAME_STEP
    return gym.make_vec("Baohuang-v0", num_envs=num_envs, vectorization_mode="vector_entry_point",
                        preset=args.preset, opponents=args.opponents, learner_seat=seat,
                        reward_mode=args.reward_mode, illegal_action="raise", autoreset_mode=mode)


def layer_init(layer: nn.Linear, std: float = np.sqrt(2), bias_const: float = 0.0) -> nn.Linear:
    """Orthogonal weights and constant biases, as CleanRL initialises its layers."""
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


class CategoricalMasked(Categorical):
    """A categorical over the legal actions only: illegal logits are set to -1e8 (probability 0)
    and the entropy sums over the legal actions (an illegal one adds nothing)."""

    def __init__(self, logits: torch.Tensor, mask: torch.Tensor) -> None:
        self.mask = mask
        super().__init__(logits=torch.where(mask, logits, torch.tensor(-1e8, device=logits.device)))

    def entropy(self) -> torch.Tensor:
        p_log_p = torch.where(self.mask, self.logits * self.probs, torch.zeros((), device=self.logits.device))
        return -p_log_p.sum(-1)


class Agent(nn.Module):
    """CleanRL's ppo.py agent: a critic and an actor, each an MLP of two tanh layers; the
    actor's head scores the whole action table."""

    def __init__(self, obs_size: int, num_actions: int, hidden: int) -> None:
        super().__init__()
        self.critic = nn.Sequential(
            layer_init(nn.Linear(obs_size, hidden)), nn.Tanh(),
            layer_init(nn.Linear(hidden, hidden)), nn.Tanh(),
            layer_init(nn.Linear(hidden, 1), std=1.0),
        )
        self.actor_torso = nn.Sequential(
            layer_init(nn.Linear(obs_size, hidden)), nn.Tanh(),
            layer_init(nn.Linear(hidden, hidden)), nn.Tanh(),
        )
        self.actor_head = layer_init(nn.Linear(hidden, num_actions), std=0.01)

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x)

    def policy(self, x: torch.Tensor, mask: torch.Tensor) -> tuple[CategoricalMasked, torch.Tensor]:
        """The masked policy of observations `x` (B, D) with legal actions `mask` (B, A), over
        `columns`: the actions legal in some row, in increasing order (an action's index in the
        distribution is its position there). The other actions have probability 0 in every row,
        so this is the distribution over the whole table, made at a fraction of its cost: a
        state has about 5 legal actions of 4,036 and a minibatch of 1,024 rows about 500."""
        columns = mask.any(0).nonzero().squeeze(1)
        logits = F.linear(self.actor_torso(x), self.actor_head.weight[columns], self.actor_head.bias[columns])
        return CategoricalMasked(logits, mask[:, columns]), columns

    def get_action_and_value(self, x: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None):
        """(action, its log-probability, the entropy, the value) of observations `x` whose
        legal actions are `mask`; a given `action` is scored instead of sampled."""
        probs, columns = self.policy(x, mask)
        index = probs.sample() if action is None else torch.searchsorted(columns, action)
        return columns[index], probs.log_prob(index), probs.entropy(), self.critic(x)


def compute_gae(rewards: torch.Tensor, values: torch.Tensor, dones: torch.Tensor, next_value: torch.Tensor,
                gamma: float, gae_lambda: float) -> tuple[torch.Tensor, torch.Tensor]:
    """(advantages, returns) of a rollout, all (num_steps, num_envs); `dones[t]` says that the
    step taken at row t ended the episode, so row t does not bootstrap from row t + 1.

    Under next-step autoreset the row after an ended episode is the reset row: the chain of the
    ended episode stops before it (dones), and its own advantage, made from the ended episode's
    last observation and the new episode's first, is meaningless: the caller drops that row."""
    num_steps = rewards.shape[0]
    advantages = torch.zeros_like(rewards)
    lastgaelam = torch.zeros_like(next_value)
    for t in reversed(range(num_steps)):
        nextvalues = next_value if t == num_steps - 1 else values[t + 1]
        nextnonterminal = 1.0 - dones[t]
        delta = rewards[t] + gamma * nextvalues * nextnonterminal - values[t]
        advantages[t] = lastgaelam = delta + gamma * gae_lambda * nextnonterminal * lastgaelam
    return advantages, advantages + values


def evaluate(args: Args, agent: Agent | None, device: torch.device) -> np.ndarray:
    """The return of the first episode of each of `eval_episodes` envs seeded from `eval_seed`,
    actions sampled from `agent`'s masked policy (None: uniformly among the legal actions).
    Each policy meets the same deals, seats and opponent seeds: only its own play differs."""
    envs = make_envs(args, args.eval_episodes)
    obs, info = envs.reset(seed=args.eval_seed)
    generator = torch.Generator().manual_seed(args.eval_seed)
    returns = np.zeros(args.eval_episodes)
    finished = np.zeros(args.eval_episodes, dtype=bool)
    while not finished.all():
        mask = torch.as_tensor(info["action_mask"], dtype=torch.bool)
        with torch.no_grad():
            if agent is None:
                probs, columns = CategoricalMasked(torch.zeros(mask.shape), mask).probs, torch.arange(mask.shape[1])
            else:
                dist, columns = agent.policy(torch.as_tensor(obs).to(device), mask.to(device))
                probs, columns = dist.probs.cpu(), columns.cpu()
        action = columns[torch.multinomial(probs, 1, generator=generator).squeeze(1)]
        obs, reward, terminations, truncations, info = envs.step(action.numpy())
        returns += np.where(finished, 0.0, reward)
        finished |= terminations | truncations
    envs.close()
    return returns


def summary(returns: np.ndarray) -> dict[str, float]:
    """Mean return, its standard error and the win rate (a positive return) of some episodes."""
    return {"mean_return": round(float(returns.mean()), 4),
            "stderr": round(float(returns.std(ddof=1) / np.sqrt(len(returns))), 4),
            "win_rate": round(float((returns > 0).mean()), 4)}


def main(argv: list[str] | None = None) -> dict:
    """Train, evaluate, print the result as one JSON line and return it."""
    args = parse_args(argv)
    batch_size = args.num_envs * args.num_steps
    num_iterations = max(1, args.total_timesteps // batch_size)
    out = Path(args.out or f"runs/ppo_masked_vector__{args.seed}__{int(time.time())}")
    writer = SummaryWriter(str(out))
    writer.add_text("hyperparameters", "|param|value|\n|-|-|\n" + "\n".join(
        f"|{key}|{value}|" for key, value in vars(args).items()))

    # seeding
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    torch.backends.cudnn.deterministic = True
    device = torch.device("cuda" if torch.cuda.is_available() and args.cuda else "cpu")

    # env setup
    envs = make_envs(args, args.num_envs)
    next_step_mode = envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    obs_size = envs.single_observation_space.shape[0]
    num_actions = int(envs.single_action_space.n)

    agent = Agent(obs_size, num_actions, args.hidden).to(device)
    initial_agent = copy.deepcopy(agent)
    optimizer = optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    # rollout storage
    obs = torch.zeros((args.num_steps, args.num_envs, obs_size)).to(device)
    masks = torch.zeros((args.num_steps, args.num_envs, num_actions), dtype=torch.bool).to(device)
    actions = torch.zeros((args.num_steps, args.num_envs), dtype=torch.long).to(device)
    logprobs = torch.zeros((args.num_steps, args.num_envs)).to(device)
    rewards = torch.zeros((args.num_steps, args.num_envs)).to(device)
    dones = torch.zeros((args.num_steps, args.num_envs)).to(device)
    values = torch.zeros((args.num_steps, args.num_envs)).to(device)
    decisions = torch.zeros((args.num_steps, args.num_envs), dtype=torch.bool).to(device)  # not a reset row

    global_step = 0
    start_time = time.time()
    next_obs, info = envs.reset(seed=args.seed)
    next_obs = torch.as_tensor(next_obs).to(device)
    next_mask = torch.as_tensor(info["action_mask"], dtype=torch.bool).to(device)
    next_is_reset = np.zeros(args.num_envs, dtype=bool)  # NEXT_STEP: the env's next step resets it
    episode_return = np.zeros(args.num_envs)
    episode_length = np.zeros(args.num_envs, dtype=np.int64)
    episodes = reset_rows = 0
    losses: dict[str, float] = {}

    for iteration in range(1, num_iterations + 1):
        if args.anneal_lr:
            frac = 1.0 - (iteration - 1.0) / num_iterations
            optimizer.param_groups[0]["lr"] = frac * args.learning_rate

        iteration_returns = []
        for step in range(args.num_steps):
            global_step += args.num_envs
            obs[step] = next_obs
            masks[step] = next_mask
            is_decision = ~next_is_reset
            decisions[step] = torch.as_tensor(is_decision)

            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs, next_mask)
                values[step] = value.flatten()
            actions[step] = action
            logprobs[step] = logprob

            next_obs, reward, terminations, truncations, info = envs.step(action.cpu().numpy())
            # Baohuang-v0 never truncates (every deal ends), so an ended episode has nothing to bootstrap
            next_done = np.logical_or(terminations, truncations)
            rewards[step] = torch.as_tensor(reward * args.reward_scale, dtype=torch.float32).to(device)
            dones[step] = torch.as_tensor(next_done, dtype=torch.float32).to(device)
            next_obs = torch.as_tensor(next_obs).to(device)
            next_mask = torch.as_tensor(info["action_mask"], dtype=torch.bool).to(device)
            reset_rows += int((~is_decision).sum())
            next_is_reset = next_done if next_step_mode else np.zeros(args.num_envs, dtype=bool)

            episode_return += reward
            episode_length += is_decision
            for i in np.flatnonzero(next_done):
                writer.add_scalar("charts/episodic_return", episode_return[i], global_step)
                writer.add_scalar("charts/episodic_length", episode_length[i], global_step)
                iteration_returns.append(episode_return[i])
            episodes += int(next_done.sum())
            episode_return[next_done] = 0.0
            episode_length[next_done] = 0

        # bootstrap value if not done
        with torch.no_grad():
            next_value = agent.get_value(next_obs).reshape(1, -1)
            advantages, returns = compute_gae(rewards, values, dones, next_value, args.gamma, args.gae_lambda)

        # flatten the batch, keeping the decisions only (the reset rows of next-step autoreset are none)
        keep = decisions.reshape(-1)
        b_obs = obs.reshape((-1, obs_size))[keep]
        b_masks = masks.reshape((-1, num_actions))[keep]
        b_logprobs = logprobs.reshape(-1)[keep]
        b_actions = actions.reshape(-1)[keep]
        b_advantages = advantages.reshape(-1)[keep]
        b_returns = returns.reshape(-1)[keep]
        b_values = values.reshape(-1)[keep]

        # optimizing the policy and value network
        rows = len(b_obs)
        generator = np.random.default_rng([args.seed, iteration])
        clipfracs = []
        for _epoch in range(args.update_epochs):
            for mb_inds in np.array_split(generator.permutation(rows), args.num_minibatches):
                mb_inds = torch.as_tensor(mb_inds, device=device)
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(
                    b_obs[mb_inds], b_masks[mb_inds], b_actions[mb_inds])
                logratio = newlogprob - b_logprobs[mb_inds]
                ratio = logratio.exp()

                with torch.no_grad():
                    # calculate approx_kl http://joschu.net/blog/kl-approx.html
                    old_approx_kl = (-logratio).mean()
                    approx_kl = ((ratio - 1) - logratio).mean()
                    clipfracs += [((ratio - 1.0).abs() > args.clip_coef).float().mean().item()]

                mb_advantages = b_advantages[mb_inds]
                if args.norm_adv:
                    mb_advantages = (mb_advantages - mb_advantages.mean()) / (mb_advantages.std() + 1e-8)

                # policy loss
                pg_loss1 = -mb_advantages * ratio
                pg_loss2 = -mb_advantages * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)
                pg_loss = torch.max(pg_loss1, pg_loss2).mean()

                # value loss
                newvalue = newvalue.view(-1)
                if args.clip_vloss:
                    v_loss_unclipped = (newvalue - b_returns[mb_inds]) ** 2
                    v_clipped = b_values[mb_inds] + torch.clamp(
                        newvalue - b_values[mb_inds], -args.clip_coef, args.clip_coef)
                    v_loss_clipped = (v_clipped - b_returns[mb_inds]) ** 2
                    v_loss = 0.5 * torch.max(v_loss_unclipped, v_loss_clipped).mean()
                else:
                    v_loss = 0.5 * ((newvalue - b_returns[mb_inds]) ** 2).mean()

                entropy_loss = entropy.mean()
                loss = pg_loss - args.ent_coef * entropy_loss + v_loss * args.vf_coef

                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

            if args.target_kl is not None and approx_kl > args.target_kl:
                break

        y_pred, y_true = b_values.cpu().numpy(), b_returns.cpu().numpy()
        var_y = np.var(y_true)
        explained_var = np.nan if var_y == 0 else 1 - np.var(y_true - y_pred) / var_y

        sps = int(global_step / (time.time() - start_time))
        losses = {"value_loss": v_loss.item(), "policy_loss": pg_loss.item(), "entropy": entropy_loss.item(),
                  "old_approx_kl": old_approx_kl.item(), "approx_kl": approx_kl.item(),
                  "clipfrac": float(np.mean(clipfracs)), "explained_variance": float(explained_var)}
        writer.add_scalar("charts/learning_rate", optimizer.param_groups[0]["lr"], global_step)
        for name, value in losses.items():
            writer.add_scalar(f"losses/{name}", value, global_step)
        writer.add_scalar("charts/SPS", sps, global_step)
        mean_return = f"{np.mean(iteration_returns):.2f}" if iteration_returns else "-"
        print(f"iteration {iteration}/{num_iterations} global_step={global_step} SPS={sps} "
              f"episodes={len(iteration_returns)} mean_return={mean_return} decisions={rows}", flush=True)

    train_seconds = time.time() - start_time
    envs.close()
    writer.close()

    result = {"global_step": global_step, "iterations": num_iterations, "episodes": episodes,
              "reset_rows_dropped": reset_rows, "train_seconds": round(train_seconds, 1),
              "sps": int(global_step / train_seconds), "out": str(out),
              "final_losses": {k: None if np.isnan(v) else round(v, 6) for k, v in losses.items()}}  # JSON has no NaN
    if args.eval_episodes > 0:
        trained = evaluate(args, agent, device)
        initial = evaluate(args, initial_agent, device)
        uniform = evaluate(args, None, device)
        diff = trained - initial
        result["eval"] = {
            "episodes": args.eval_episodes, "eval_seed": args.eval_seed, "opponents": args.opponents,
            "trained": summary(trained), "initial": summary(initial), "random": summary(uniform),
            "trained_minus_initial": {"mean": round(float(diff.mean()), 4),
                                      "stderr": round(float(diff.std(ddof=1) / np.sqrt(len(diff))), 4)}}
    print(json.dumps(result), flush=True)
    return result


if __name__ == "__main__":
    main()
