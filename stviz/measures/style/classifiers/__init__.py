"""Style classifiers: the estimators behind style transfer intensity, style masking and token attributions.

Two kinds, both scikit-learn style (``fit`` / ``predict_proba`` / ``predict``, parameters only in
``__init__``, learned attributes ending in ``_``):

* :class:`~stviz.measures.style.classifiers.tfidf.TfidfStyleClassifier` (``lr``): logistic regression on TF-IDF word
  n-grams, as Mir et al. (NAACL 2019) used for their style lexicon;
* :class:`~stviz.measures.style.classifiers.transformer.TransformerStyleClassifier` (``transformer``): a logistic head
  over MiniLM sentence vectors, differentiable for Integrated Gradients.

:mod:`stviz.measures.style.classifiers.training` trains either with a held-out report and caches it; which texts
train a dataset's classifier is a data rule (:mod:`stviz.data.labels`). :mod:`stviz.measures.style.classifiers.scorers`
scores sentences rated by people for style: regressors learned from the ratings, or a classifier's probability of one
class.
"""

from stviz.data.labels import OneStyleError, check_style_labels
from stviz.measures.style.classifiers.training import (DEFAULT_MAX_TEXTS, KINDS, TrainedClassifier, default_classifier,
                                                       load_classifier, make_classifier, save_classifier,
                                                       train_on_dataset, train_style_classifier)

__all__ = ["DEFAULT_MAX_TEXTS", "KINDS", "OneStyleError", "TrainedClassifier", "check_style_labels",
           "default_classifier", "load_classifier", "make_classifier", "save_classifier", "train_on_dataset",
           "train_style_classifier"]
