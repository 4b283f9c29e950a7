"""The network pieces both trainers (`agents.dmc`, `agents.ppo`) build on: the state-action
scorer in torch and numpy (`networks`), the static feature row of every action
(`action_features`), DMC's per-decision advice columns from the heuristic bot (`advice`), and
the guard-belief head, an auxiliary output that names the guard (`guard_head`).
"""
