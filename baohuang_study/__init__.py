"""The hidden-teammate research kit (`baohuang study`, docs/hidden_team.md): measurements of
how agents find, hide and play with a hidden partner.

One module per study: `belief` (guard identification), `crossplay` (emperor from one agent,
guard from another), `leak` (the hidden-information audit), `teamplay` (team-play and
signalling statistics), and beside them `role_rates` (how often an agent takes each role-phase
option); shared pieces: `collect` (recorded self-play), `metrics`
(top-1, log-loss, Brier, ECE), `probe` (logistic belief probes), `report` (JSON, Markdown
and PNG written atomically). A layer between the agents and the command line.
"""
