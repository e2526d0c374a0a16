"""The disk cache shared by the dashboard and the command line, one module per job.

- ``store``: :class:`Cache` (sentence vectors in SQLite, derived results as checked files) and
  :func:`default_cache`, the one Cache per folder of a process;
- ``keys``: content keys (:func:`fingerprint` of parameters, :func:`text_key` of a text);
- ``paths``: where stviz's files are (:func:`stviz_home` for what it writes, :func:`app_root` for the dashboard);
- ``entries``: what each entry carries (checksums, result headers) and how it is checked when read;
- ``areas``: the folder's areas, listed with their sizes and cleared by name;
- ``sqlite_files``: telling a damaged SQLite file from other errors, and setting it aside;
- ``pair_values``: values per (computation, pair), so a sampled preview's pairs are not computed again.

Callers write ``from stviz.cache import Cache, default_cache, fingerprint``; the per-pair stores are
imported from :mod:`stviz.cache.pair_values`. Nothing here imports a stviz module outside this package
but :mod:`stviz.progress`.
"""

from stviz.cache.areas import AREAS, Area, ClearReport, format_bytes
from stviz.cache.entries import VECTOR_SCHEMA, BadEntry, decode_result, encode_result, vector_checksum
from stviz.cache.keys import fingerprint, text_key
from stviz.cache.paths import PROJECT_ROOT, app_root, is_checkout, stviz_home
from stviz.cache.store import Cache, MixedDimensionsError, default_cache

__all__ = ["AREAS", "PROJECT_ROOT", "VECTOR_SCHEMA", "Area", "BadEntry", "Cache", "ClearReport", "MixedDimensionsError",
           "app_root", "decode_result", "default_cache", "encode_result", "fingerprint", "format_bytes", "is_checkout",
           "stviz_home", "text_key", "vector_checksum"]
