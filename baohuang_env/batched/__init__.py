"""Many games at once. `games`: `BatchedGames`, B games of one rule set in lockstep, arrays in
and out (the API the trainers, the evaluation and the vector env use); `masks`: the legal masks
and actions of many `Game`s in one call (the "games" engine's boundary); `kernels`: the array
engine, the play phase of many games as arrays stepped by Numba kernels (`PlayArrays`); `draws`:
numpy's bounded integer draws of many generators in compiled code, for random players. Only
`kernels` and `draws` import Numba; this package imports none of them by itself.
"""
