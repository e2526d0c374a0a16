"""Style Transformer (Dai et al. 2019)'s release: its two systems on the Yelp test set (published systems of the
``yelp`` card) and its IMDb test set with the same two systems (the ``imdb`` card).

Read from the ``style-transformer`` corpus (``fastnlp/style-transformer`` at 5105cb5): ``outputs/yelp`` and
``outputs/imbd`` (the repository's spelling) hold ``output.{0,1}.{ours_cond,ours_multi}``, bare lines aligned with
``data/DATASET/test.neg`` (direction 0) and ``test.pos`` (direction 1), as the outputs' word overlap with each file
shows (``tests/test_benchmarks.py``). Its Yelp test inputs are byte for byte DualRL's (Li et al. 2018's test set).
The repository states no licence at that commit, so the corpus is fetched on a user's request and never shipped.
"""

from __future__ import annotations

from stviz.benchmarks.card import Benchmark, PublishedSystem, SENTIMENT_DIRECTIONS

DAI = ("Dai, Liang, Qiu, Huang. Style Transformer: Unpaired Text Style Transfer without Disentangled Latent "
       "Representation. ACL 2019.")
PAPER = "Dai et al. 2019 (ACL)"
LICENCE = "none stated (fastnlp/style-transformer at 5105cb5): fetched on request, never shipped"
#: stviz name -> the file suffix: the paper's two discriminators, conditional and multi-class.
SYSTEMS = {"StyleTransformer-cond": "ours_cond", "StyleTransformer-multi": "ours_multi"}
#: Why no reported number is given: the paper's tables are not among the sources this project can read.
NOT_READ = ("Dai et al. 2019's results table could not be read here (the paper's text is not among the stored "
            "sources), so its numbers are left empty rather than quoted from memory")
SETUP = ("the paper's setup: accuracy from a fastText classifier, BLEU (NLTK) against the one human reference (Yelp) "
         "and self-BLEU against the input, perplexity from a KenLM 5-gram model (repository README, evaluator/)")


def style_transformer_systems(folder: str) -> tuple[PublishedSystem, ...]:
    """The two Style Transformer systems on one of its output folders (``yelp`` or ``imbd``)."""
    return tuple(PublishedSystem(name, PAPER, {d: f"style-transformer/outputs/{folder}/output.{d}.{suffix}"
                                               for d in "01"},
                                 f"fastnlp/style-transformer outputs/{folder}/output.{{0,1}}.{suffix}", LICENCE)
                 for name, suffix in SYSTEMS.items())


IMDB = Benchmark(
    name="imdb",
    title="the IMDb test set of Dai et al. 2019",
    description="IMDb movie-review sentiment transfer: 1,000 negative and 1,000 positive sentences (Dai et al. "
                "2019's test split), no human references, Style Transformer's two systems.",
    inputs={"0": "style-transformer/data/imdb/test.neg", "1": "style-transformer/data/imdb/test.pos"},
    directions=SENTIMENT_DIRECTIONS,
    references=(),
    reference_notes="no human references: BLEU, chrF, G2 and H2 are not defined; self-BLEU against the input is",
    systems=style_transformer_systems("imbd"),
    licence=LICENCE,
    # The card holds no IMDb training sentences (the shared copy leaves train.* out), and a classifier trained on the
    # test inputs themselves rewards copying them (Style Transformer's accuracy 42% against 71% with this corpus):
    # the Yelp sentences, as stviz's auto rule picks for any English negative/positive upload, though another domain.
    style_data="yelp-sentiment",
    reported_setup=SETUP,
    reported_note=NOT_READ,
    reported_metrics=("self_bleu", "accuracy"),  # no references: the paper's content measure is self-BLEU
    citations=(DAI,),
)

__all__ = ["DAI", "IMDB", "NOT_READ", "SYSTEMS", "style_transformer_systems"]
