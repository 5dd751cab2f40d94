# SPDX-License-Identifier: MIT
"""The GPU catalog and MIG geometry (docs/spec.md, docs/spec-mig.md): the JSON of
`gpurent catalog` and `gpurent mig` as dicts."""
from __future__ import annotations

import json
from typing import Any, Dict, Iterable, List, Union

from . import _args, _core


def catalog() -> Dict[str, Any]:
    """The built-in GPU models and the documents their numbers come from (`gpurent catalog`)."""
    return json.loads(_core.catalog_json())


def mig_profiles(gpu: str) -> Dict[str, Any]:
    """A model's MIG profiles with their start slots (`gpurent mig profiles --gpu GPU`)."""
    return json.loads(_core.mig_profiles_json(gpu))


def _joined(x: Union[str, Iterable[str]]) -> str:
    return x if isinstance(x, str) else ",".join(x)


def mig_fit(gpu: str, want: Union[str, List[str]], have: Union[str, List[str]] = "", repartition: bool = False,
            drop: bool = False) -> Dict[str, Any]:
    """Where the MIG instances `want` ("3g.40gb" or a list) fit beside `have` ("1g.10gb@0" or
    a list): `gpurent mig fit`'s JSON; with repartition (or drop) a plan when they do not fit."""
    wanted = _joined(want)
    if not wanted:
        raise _args.fail("want", "no profile was asked for (give one or more, e.g. \"3g.40gb\")")
    return json.loads(_core.mig_fit_json(gpu, wanted, _joined(have), repartition, drop))
