"""A generated three-axis rating file for the meta-evaluation tests (issue 31): the demo's pairs, raters per aspect."""

from __future__ import annotations

import numpy as np
import pandas as pd


def three_axis_file(tmp_path) -> str:
    """The demo's 72 informal->formal pairs of 3 systems, two raters per aspect (0-100), no style columns."""
    from stviz.data import load_dataset

    pairs = load_dataset("demo").pairs
    rng = np.random.default_rng(1)

    def raters(base):
        return [np.clip(np.round(base * 20 + rng.normal(0, 8, len(base))), 0, 100) for _ in range(2)]

    content = raters(pairs["human:content_preservation"].to_numpy(float))
    style = raters(pairs["human:style_transfer_intensity"].to_numpy(float))
    fluency = raters(pairs["output"].str.len().to_numpy() % 5 + 1.0)
    frame = pd.DataFrame({"system": pairs["system"], "source": pairs["source"], "output": pairs["output"],
                          "reference": pairs["reference"], "content_1": content[0], "style_1": style[0],
                          "fluency_1": fluency[0], "content_2": content[1], "style_2": style[1],
                          "fluency_2": fluency[1]})
    path = tmp_path / "axes.csv"
    frame.to_csv(path, index=False)
    return str(path)
