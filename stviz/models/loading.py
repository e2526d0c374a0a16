"""Verified loading: every transformer model stviz runs is loaded here, complete or not at all.

Why: a library that picks a model's class from the characters of its name reads the wrong model.
bert-score's ``get_model`` loads ``T5EncoderModel`` whenever ``"t5"`` is in the string it is given, so the
shipped MiniLM, installed under ``~/t5-experiments/``, became a T5 encoder whose every weight was random, and
BERTScore was noise; the only sign was transformers' "newly initialized" table in a log. So stviz:

* reads the model's ``config.json`` (``AutoConfig``: its ``model_type``, never the path) and loads the class
  the config names (its ``architectures``, else the Auto class of the task), never a class guessed from a name;
* asks transformers what the load left out (``output_loading_info=True``) and refuses, in one line naming the
  model and the fix, a load with any weight missing (it would be newly initialised at random), unexpected
  (the files hold another model), or of another shape;
* keeps only the layers a measure uses itself (:func:`keep_layers`, BERTScore's ``num_layers``) and hands the
  loaded model to the libraries (bert-score, sentence-transformers, captum) instead of a name they parse.

:func:`content_key` is the key a model's checks are cached under: a hash of its files' bytes.
"""

from __future__ import annotations

import functools
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from stviz.embedders.base import EmbedderError, local_model_key

#: The Auto class of each task stviz loads models for (the class a config names for that task).
TASKS = {"encoder": "AutoModel", "causal-lm": "AutoModelForCausalLM", "masked-lm": "AutoModelForMaskedLM",
         "sequence-classification": "AutoModelForSequenceClassification"}
#: Unit roundoff of each precision a model may run in: the scale of float rounding bounds.
UNIT_ROUNDOFF = {"fp32": 2.0 ** -24, "fp16": 2.0 ** -11, "bf16": 2.0 ** -8, "fp64": 2.0 ** -53}
#: How many key names a refusal lists of each kind (the count says the rest).
SHOWN_KEYS = 3


class ModelLoadError(EmbedderError):
    """A model whose files do not fill it (a weight missing, unexpected or misshapen): refused, with the fix."""


@dataclass(frozen=True)
class LoadedModel:
    """One verified load, as the doctor lists it: which model, from where, as which class, and how long it took."""

    label: str
    source: str
    model_class: str
    task: str
    device: str
    seconds: float


_loaded: list[LoadedModel] = []
_loaded_guard = threading.Lock()


def loaded_models() -> list[LoadedModel]:
    """The models loaded (verified) by this process so far, oldest first."""
    with _loaded_guard:
        return list(_loaded)


def quiet_transformers() -> None:
    """Silence transformers' weight-loading bars and warnings (refusals below say what matters)."""
    # Its bars would interleave with our own progress output.
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()


# -- loading ------------------------------------------------------------------------------------
def load_pretrained(source: str, task: str = "encoder", *, label: str = "", device: str = "cpu",
                    num_layers: int | None = None, model_class=None, subfolder: str = ""):
    """A transformers model from ``source`` with the class its config names, refused unless its files fill it.

    ``task`` is one of :data:`TASKS`; an ``encoder`` is the base model of whatever head the checkpoint was
    saved with (its token states), so a masked-LM checkpoint gives its encoder with nothing left out.
    ``model_class`` overrides the class (sentence-transformers' own choice); ``num_layers`` keeps the first
    layers only (:func:`keep_layers`). Raises :class:`ModelLoadError` for an incomplete load; other loading
    errors (no such folder, no network) propagate for the caller's message.
    """
    quiet_transformers()
    start = time.perf_counter()
    label = label or source
    config = load_config(source, subfolder, model_class)
    cls = model_class or model_class_for(config, task)
    model, info = cls.from_pretrained(source, config=config, subfolder=subfolder, output_loading_info=True)
    refuse_incomplete(info, label, source, cls.__name__, ignored=_ignored_unexpected(config, model))
    if task == "encoder" and model_class is None:
        model = encoder_of(model)
    if num_layers is not None:
        keep_layers(model, num_layers, label)
    model = model.to(device).eval()
    with _loaded_guard:
        _loaded.append(LoadedModel(label, source, type(model).__name__, task, device, time.perf_counter() - start))
    return model


def load_tokenizer(source: str, subfolder: str = "", **options):
    """The tokenizer saved with a model (its ``tokenizer_config.json`` / config name its class, not the path)."""
    from transformers import AutoTokenizer

    quiet_transformers()
    return AutoTokenizer.from_pretrained(source, subfolder=subfolder, **options)


def load_config(source: str, subfolder: str = "", model_class=None):
    """A model's configuration, read from its ``config.json`` (whose ``model_type`` names the architecture).

    A ``model_class`` from outside transformers (a BLEURT-20 port) reads it with its own configuration class.
    """
    from transformers import AutoConfig

    reader = getattr(model_class, "config_class", None) or AutoConfig
    return reader.from_pretrained(source, subfolder=subfolder)


def model_class_for(config, task: str):
    """The class a config names for a task: its ``architectures`` entry for an encoder, else the task's Auto class."""
    import transformers

    if task not in TASKS:
        raise ValueError(f"unknown model task '{task}'; choose one of {', '.join(TASKS)}")
    named = (getattr(config, "architectures", None) or [None])[0]
    if task == "encoder" and named and hasattr(transformers, named):
        # The class it was saved as: loading that leaves nothing out, and its base model is the encoder.
        return getattr(transformers, named)
    return getattr(transformers, TASKS[task])


def encoder_of(model):
    """The part of a loaded model that gives token states: the base model under a head, an encoder-decoder's encoder."""
    base = getattr(model, "base_model", model)
    if hasattr(base, "encoder") and hasattr(base, "decoder") and hasattr(base, "get_encoder"):
        return base.get_encoder()
    return base


def _ignored_unexpected(config, model) -> tuple[str, ...]:
    # An encoder-only class of an encoder-decoder checkpoint leaves the decoder out by design (as
    # sentence-transformers loads T5 encoders): those keys are not another model's.
    if getattr(config, "is_encoder_decoder", False) and not hasattr(model, "decoder"):
        return ("decoder.", "lm_head.")
    return ()


def refuse_incomplete(info: dict, label: str, source: str, class_name: str, ignored: tuple[str, ...] = ()) -> None:
    """Raise :class:`ModelLoadError` when a load left a weight missing, unexpected or of another shape."""
    missing = sorted(info.get("missing_keys") or ())
    unexpected = sorted(k for k in info.get("unexpected_keys") or () if not k.startswith(ignored))
    mismatched = sorted(str(k[0]) for k in info.get("mismatched_keys") or ())
    errors = [str(e) for e in info.get("error_msgs") or ()]
    if not (missing or unexpected or mismatched or errors):
        return
    parts = []
    if missing:
        parts.append(f"{_some(missing)} missing from its files (they would be newly initialised at random)")
    if unexpected:
        parts.append(f"{_some(unexpected)} in its files that {class_name} does not have")
    if mismatched:
        parts.append(f"{_some(mismatched)} of another shape")
    if errors:
        parts.append(f"errors: {errors[0][:200]}")
    raise ModelLoadError(f"refused the model {label} ({source}) loaded as {class_name}: " + "; ".join(parts)
                         + ". Its folder is incomplete or holds another model: copy or download it again, "
                         "or give a complete folder")


def _some(keys: list[str]) -> str:
    shown = ", ".join(keys[:SHOWN_KEYS])
    return f"{len(keys)} weight{'s' if len(keys) != 1 else ''} ({shown}{', ...' if len(keys) > SHOWN_KEYS else ''})"


def keep_layers(model, num_layers: int, label: str = "") -> None:
    """Keep the first ``num_layers`` transformer layers of a loaded encoder (a measure that reads that layer).

    The same cut as bert-score's ``get_model`` makes, found by the model's structure rather than its name.
    """
    import torch

    for owner_path, name in (("encoder", "layer"), ("transformer", "layer"), ("", "layers"), ("", "layer"),
                             ("encoder", "block"), ("", "block"), ("", "h")):
        owner = getattr(model, owner_path, None) if owner_path else model
        layers = getattr(owner, name, None) if owner is not None else None
        if isinstance(layers, torch.nn.ModuleList):
            if not 0 <= num_layers <= len(layers):
                raise ModelLoadError(f"{label or type(model).__name__} has {len(layers)} layers; "
                                     f"num_layers={num_layers} is not one of them")
            setattr(owner, name, torch.nn.ModuleList(list(layers)[:num_layers]))
            return
    raise ModelLoadError(f"cannot find the layers of {type(model).__name__} ({label}) to keep {num_layers}")


# -- keys and bounds ------------------------------------------------------------------------------
def content_key(source: str) -> str:
    """A model's content key: a BLAKE2 hash of its files (a hub id: of its copy in the Hugging Face cache).

    A hub id with no local copy is keyed by its name (it cannot be loaded offline anyway).
    """
    path = Path(source).expanduser()
    if path.exists():
        return local_model_key(path)
    snapshot = _hub_snapshot(source)
    return local_model_key(snapshot) if snapshot is not None else f"name:{source}"


@functools.lru_cache(maxsize=64)
def _hub_snapshot(model_id: str) -> Path | None:
    if model_id.count("/") != 1:
        return None
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(model_id, local_files_only=True))
    except Exception:  # noqa: BLE001 - not in the cache, or no hub library: keyed by name
        return None


def rounding_bound(layers: int, width: int, precision: str = "fp32") -> float:
    """A float rounding bound on a transformer's normalised outputs: layers x widest sum x unit roundoff.

    Each layer's matrix products sum at most ``width`` terms, and a sum of n terms in a precision of unit
    roundoff u is off by at most n*u relative (Higham's gamma_n); the errors of successive layers add up.
    """
    return layers * width * UNIT_ROUNDOFF[precision]


def config_bound(source: str, precision: str = "fp32") -> float:
    """:func:`rounding_bound` of a model from its configuration (layers, hidden and feed-forward widths).

    A model whose configuration cannot be read gets a large model's bound (24 layers, 4096 wide): loading it
    then says what is wrong.
    """
    try:
        config = load_config(source)
    except Exception:  # noqa: BLE001 - the model's own load gives the clear message
        return rounding_bound(24, 4096, precision)
    layers = getattr(config, "num_hidden_layers", None) or getattr(config, "n_layer", None) or 12
    hidden = getattr(config, "hidden_size", None) or getattr(config, "n_embd", None) or 1024
    # The feed-forward width, where the config leaves it to the architecture's default of 4 x hidden (GPT-2).
    width = max(getattr(config, "intermediate_size", 0) or 0, getattr(config, "n_inner", 0) or 0, 4 * hidden)
    return rounding_bound(int(layers), int(width), precision)
