"""What the trainers (`agents.dmc`, `agents.ppo`) share around their loops: the typed configs
and the shipped recipes (`config`), the run's directory, clock, resume and stop (`run`),
seeding, live and final evaluation and exports (`common`), the training games on the batched
engine (`training_games`) and their opponents (`opponents`), the learner's device (`device`),
the Ray backend (`ray_backend`) and learning curves of runs (`curves`). The RLlib adapter lives
here too; it needs the `rllib` extra, and no module of the project imports it.
"""
