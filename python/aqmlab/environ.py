"""Environment variables set for a while (:func:`setting`)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping


@contextlib.contextmanager
def setting(values: Mapping[str, str]) -> Iterator[None]:
    """Sets ``values`` in ``os.environ`` inside the ``with``, and puts back what each variable
    was (or removes it) afterwards, so programs started later do not inherit them."""
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
