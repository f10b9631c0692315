"""Games: coalitions in, worths out.

Takes kernels (for the product games' factors). Hands on :class:`Game` and its
abilities as types, the tabular, function, grouped and product games, and the
coalition utilities (enumeration, bitmasks, Shapley and KernelSHAP weights,
sampling). A game returns an array (m, n): m coalitions, n instances.
"""

from ._coalitions import (
    MAX_ENUMERATION_PLAYERS,
    all_coalitions,
    bitmasks_to_coalitions,
    coalition_size_distribution,
    coalitions_to_bitmasks,
    sample_coalitions,
    shapley_kernel_weights,
    shapley_weights,
)
from ._game_types import (
    FunctionGame,
    Game,
    GroupedGame,
    LinearInCoefficients,
    TabularGame,
    tabulate,
)
from ._product_games import HasUnitGames, ProductGame, SumOfProductGames, UnitAbsentGame, unit_product_worths

__all__ = ["Game", "TabularGame", "FunctionGame", "ProductGame", "SumOfProductGames",
           "GroupedGame", "all_coalitions", "coalitions_to_bitmasks", "bitmasks_to_coalitions",
           "shapley_weights", "shapley_kernel_weights", "coalition_size_distribution",
           "sample_coalitions", "MAX_ENUMERATION_PLAYERS", "tabulate", "UnitAbsentGame",
           "unit_product_worths", "LinearInCoefficients", "HasUnitGames"]
