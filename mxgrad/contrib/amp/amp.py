"""The functions of MXNet's ``mx.contrib.amp.amp``, each refusing with a clear error (see
the package's docstring)."""
from __future__ import annotations

from typing import Any, Callable

from ...base import UnsupportedFeatureError

__all__ = ["init", "init_trainer", "scale_loss", "unscale", "convert_model",
           "convert_hybrid_block", "list_lp16_ops", "list_fp32_ops",
           "list_lp16_fp32_ops", "list_conditional_fp32_ops", "list_widest_type_cast",
           "list_loss_output_functions", "list_lp16_use_fp32_params", "convert_symbol",
           "convert_bucketing_module"]


def _refusing(name: str) -> Callable[..., Any]:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise UnsupportedFeatureError(
            f"mx.contrib.amp.{name} (automatic mixed precision) is not supported by mxgrad: "
            f"it computes on the CPU in each array's dtype; to compute in float16, cast the "
            f"network and data yourself (net.cast('float16'), x.astype('float16'))")
    refuse.__name__ = name
    refuse.__doc__ = f"MXNet's ``amp.{name}``: raises UnsupportedFeatureError (no AMP here)."
    return refuse


for _name in __all__:
    globals()[_name] = _refusing(_name)
del _name
