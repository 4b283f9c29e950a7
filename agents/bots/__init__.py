"""The scripted players: the greedy baseline (`greedy`), the heuristic bot (`heuristic`) and its
role-phase answers: the prompts as a card player names them and the hand features their models
read (`role_prompts`), the fitted models looked up by preset and prompt (`role_policy`, data in
`agents/role_models/`), their fitter (`role_fit`, `baohuang fit`), and `roles:SPEC`, one agent's
role answers with the heuristic's card play (`role_answers`). They read a seat's observation
through `agents.view` and never touch torch.
"""
