"""Design studies: one mechanism solved over many variants of its parameters.

    from solver import Mechanism, grid, latin_hypercube
    res = m.study(grid({"crank_A.position.x": [0.08, 0.1], "rod_B.position.x": [0.3, 0.4]}),
                  duration=1.0, fps=24, metrics={"stroke": lambda r: np.ptp(r.position("slider")[:, 0])})
    res.summary["peak reaction wrist"], res.best("peak effort drive"), res.failures, res.result(2)

Modules: ``params.py`` (parameter names, a variant: a copy with values set), ``samples.py``
(grid, Latin hypercube, list of dicts), ``engine.py`` (``solve_batch``: the one function every
batch of variants goes through, locally or on an executor; where a vectorized engine plugs
in), ``table.py`` (``StudyResult``: the results and the summary table), ``runner.py``
(``Study``: validation up front, batches, executors).  Dask is never imported here: a Dask
client (or ``client.get_executor()``) is just an executor.
"""
from .engine import Outcome, VariantBatch, solve_batch, solve_variant
from .params import Parameter, parameter_names, quantity, resolve
from .runner import Study
from .samples import Samples, grid, latin_hypercube
from .table import StudyResult

__all__ = ["Study", "StudyResult", "Samples", "grid", "latin_hypercube", "parameter_names",
           "quantity", "resolve", "Parameter", "solve_batch", "solve_variant", "VariantBatch", "Outcome"]
