"""What raters are asked: the protocol of a study, kept with it so that its answers can be read later.

Absolute ratings follow the TST human evaluations (Briakou et al. 2021, "A Review of Human Evaluation for
Style Transfer"): each output is rated for style toward the target, content kept from the source and fluency,
on a 1-5 scale (Li et al. 2018, Mir et al. 2019) or on the 0 / 0.5 / 1 labels of the detoxification studies
(Logacheva et al. 2022, RUSSE 2022). Pairwise studies ask which of two outputs of the same input is better on
each aspect (Lai et al. 2021), with "about the same" allowed.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from stviz.data.schema import DataError

ASPECTS = ("style", "content", "fluency")
KINDS = ("absolute", "pairwise")

#: Scale name -> the values a rater can give, lowest first, with their labels.
SCALES: dict[str, tuple[tuple[float, str], ...]] = {
    "1-5": ((1.0, "1"), (2.0, "2"), (3.0, "3"), (4.0, "4"), (5.0, "5")),
    "0-0.5-1": ((0.0, "no"), (0.5, "partly"), (1.0, "yes")),
}
#: A pairwise answer: the first output better, about the same, the second better (the first's score).
PAIRWISE_CHOICES = ((1.0, "first"), (0.5, "about the same"), (0.0, "second"))

#: The question raters read for each aspect, unless the owner words it otherwise.
WORDING = {
    "absolute": {
        "style": "Does the output have the target style ({target})?",
        "content": "Does the output keep the meaning of the source, apart from its style?",
        "fluency": "Is the output fluent, natural {language}?",
    },
    "pairwise": {
        "style": "Which output has more of the target style ({target})?",
        "content": "Which output keeps more of the source's meaning, apart from its style?",
        "fluency": "Which output is more fluent and natural?",
    },
}
#: What the lowest and the highest answer of an absolute rating mean, shown under the question.
ANCHORS = {"style": ("not at all", "fully"), "content": ("nothing kept", "all of it kept"),
           "fluency": ("unreadable", "as a person would write it")}


@dataclass(frozen=True)
class Protocol:
    """The kind of study, the aspects rated, the scale and the wording shown to raters."""

    kind: str = "absolute"
    aspects: tuple[str, ...] = ASPECTS
    scale: str = "1-5"
    wording: dict[str, str] = field(default_factory=dict)
    #: Items shown a second time to each rater, to measure their consistency.
    repeats: int = 2

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise DataError(f"unknown study kind '{self.kind}': choose one of {', '.join(KINDS)}")
        if self.scale not in SCALES:
            raise DataError(f"unknown rating scale '{self.scale}': choose one of {', '.join(SCALES)}")
        unknown = [a for a in self.aspects if a not in ASPECTS]
        if unknown or not self.aspects:
            raise DataError(f"unknown aspect(s) {', '.join(unknown) or '(none given)'}: choose from {', '.join(ASPECTS)}")
        if self.repeats < 0:
            raise DataError("the number of repeated items cannot be negative")
        # The wording is frozen into the study: the questions raters saw are kept with their answers.
        full = {a: self.wording.get(a) or WORDING[self.kind][a] for a in self.aspects}
        object.__setattr__(self, "wording", full)
        object.__setattr__(self, "aspects", tuple(self.aspects))

    def choices(self) -> tuple[tuple[float, str], ...]:
        """The answers a rater can give to one aspect: (value, label), in the order shown."""
        return PAIRWISE_CHOICES if self.kind == "pairwise" else SCALES[self.scale]

    def question(self, aspect: str, target: str = "", language: str = "") -> str:
        """The question shown for an aspect, with the pair's target style and language filled in."""
        return self.wording[aspect].replace("{target}", target or "the target style").replace(
            "{language}", _language_name(language))

    def anchors(self, aspect: str) -> str:
        """What the ends of the scale mean ('1 = not at all · 5 = fully'); empty for a pairwise question."""
        if self.kind == "pairwise":
            return ""
        (low, low_label), (high, high_label) = self.choices()[0], self.choices()[-1]
        return f"{low_label} = {ANCHORS[aspect][0]} · {high_label} = {ANCHORS[aspect][1]}"

    def to_dict(self) -> dict:
        """A JSON-ready form, stored with the study."""
        return asdict(self) | {"aspects": list(self.aspects)}

    @classmethod
    def from_dict(cls, data: dict) -> "Protocol":
        """The protocol as stored."""
        return cls(kind=data["kind"], aspects=tuple(data["aspects"]), scale=data["scale"],
                   wording=dict(data.get("wording") or {}), repeats=int(data.get("repeats", 0)))


def _language_name(code: str) -> str:
    """'English' for 'en' (a rater reads a language's name, not its code); 'text' when unknown."""
    if not code:
        return "text"
    from stviz.languages.cards import language_name

    return f"{language_name(code).split(' (')[0]} text"  # 'English (en)': raters read the name alone


__all__ = ["ANCHORS", "ASPECTS", "KINDS", "PAIRWISE_CHOICES", "SCALES", "WORDING", "Protocol"]
