"""Streamlit helpers shared by app.py and every page, one module per job; pages call them as ``ui.xxx``.

* :mod:`ui.sidebar`: page set-up, the app's own menu, the sidebar (dataset, device, cache);
* :mod:`ui.uploads`: the session's dataset (chosen, uploaded, reopened from the server's store);
* :mod:`ui.outputs`: released system outputs uploaded on the Leaderboard (choices, inventory, refusal);
* :mod:`ui.state`: the view in the URL (start from a link, write the options back, the dataset's slices);
* :mod:`ui.slices`: slices (saved filters): the panel, a lasso saved as one, a view run per slice;
* :mod:`ui.widgets`: embedder and lexicon choosers, the style classifier's panel;
* :mod:`ui.run`: a view's opening, the cost box, progress per stage, one clear error;
* :mod:`ui.queued`: a computation run in the server's one pool while the page says its place in line and progress;
* :mod:`ui.preview`: a long cold view's sampled preview, the full run in the background, the preview marks;
* :mod:`ui.export`: table and figure downloads;
* :mod:`ui.tables`: tables drawn as HTML (the leaderboard's values over their intervals);
* :mod:`ui.lazy`: tabs and expanders whose hidden content is drawn only once opened;
* :mod:`ui.text`: user text shown literally, notes, errors;
* :mod:`ui.store_notes`: a damaged per-pair store set aside, said on the page once;
* :mod:`ui.story`: a pair's story, opened from any view (and :mod:`ui.whatif`, its what-if box).

The computations live in ``stviz``, which never imports this package.
"""

from __future__ import annotations

from stviz.data import DATASET_NAMES
from ui.export import download_figure, download_table
from ui.lazy import draw_tabs, folded
from ui.outputs import outputs_section
from ui.queued import compute
from ui.run import (StreamlitReporter, confirm_cost, confirm_seconds, language_facet, open_view, require_applicable,
                    run_analysis)
from ui.preview import dataset_of_result, marked_figure, plotly_chart, title as preview_title
from ui.slices import per_slice, save_selection, slices_panel
from ui.sidebar import PAGES_DIR, app_pages, clearing_allowed, page_setup, view_link
from ui.state import remember, remember_dataset, url_options
from ui.tables import interval_table
from ui.story import open_pair_story, story_section, style_classifier
from ui.text import literal, not_applicable, show_error, show_notes
from ui.turns import run_page
from ui.uploads import (DATASET_KEY, DEFAULT_DATASET, LANGUAGE_KEY, UPLOAD_KEY, UPLOAD_NAME_KEY, choose_dataset, current_dataset_name,
                        dataset_choices, dataset_key, keep_upload, require_dataset, set_dataset, size_text)
from ui.widgets import DEFAULT_EMBEDDERS, EMBEDDERS_KEY, classifier_panel, embedder_select, lexicon_select

__all__ = ["DATASET_KEY", "DATASET_NAMES", "LANGUAGE_KEY", "DEFAULT_DATASET", "DEFAULT_EMBEDDERS", "EMBEDDERS_KEY", "PAGES_DIR",
           "StreamlitReporter", "UPLOAD_KEY", "UPLOAD_NAME_KEY", "app_pages", "choose_dataset", "classifier_panel",
           "clearing_allowed", "compute", "confirm_cost", "confirm_seconds", "current_dataset_name", "dataset_choices",
           "dataset_key", "download_figure", "download_table", "draw_tabs", "embedder_select", "folded", "interval_table", "keep_upload", "lexicon_select",
           "dataset_of_result", "language_facet", "literal", "marked_figure", "not_applicable", "open_pair_story", "open_view", "outputs_section", "page_setup", "per_slice", "plotly_chart", "preview_title", "remember", "remember_dataset", "run_page",
           "require_applicable", "require_dataset", "run_analysis", "save_selection", "set_dataset", "show_error", "size_text", "show_notes", "slices_panel",
           "story_section", "style_classifier", "url_options", "view_link"]
