"""The models behind stviz's measures: loaded verified, checked against known answers, listed by the doctor.

* :mod:`~stviz.models.loading` - every transformer model stviz runs is loaded there, with the class its
  config names, and refused when a weight is missing, unexpected or newly initialised; content keys;
* :mod:`~stviz.models.known_answers` - the answers recorded from the reference implementations
  (``known_answers.json``, written by ``tools/record_known_answers.py``) and the check each model passes
  before its first use, cached per model content x backend x device x precision;
* :mod:`~stviz.models.doctor` - every model stviz ships, checked and listed (``stviz doctor``, the sidebar).

``loading`` and ``known_answers`` sit low (they import only :mod:`stviz.cache` and
:mod:`stviz.embedders.base` / :mod:`stviz.embedders.onnx_backend`), so every measure can call them; ``doctor``
sits above the measures it runs. This package file imports none of them, so importing one never pulls the
others in.
"""
