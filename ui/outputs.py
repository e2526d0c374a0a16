"""Released system outputs uploaded on the Leaderboard page: a .zip of a folder or several files, the choices the
command line takes as flags, and the inventory shown before anything is computed (a refusal stops the page)."""

from __future__ import annotations

import streamlit as st

from stviz.data.directions import parse_direction_styles
from stviz.data.intake.readers import max_upload_mb, size_limit_text
from stviz.data.released.kept_outputs import KeptOutputs, OutputsChoice, is_outputs, save_outputs
from stviz.data.schema import DataError
from ui.state import remember_dataset
from ui.text import literal, show_error
from ui.uploads import OUTPUTS_PENDING_KEY, current_dataset_name, opened_outputs, set_dataset

_SEEN = "outputs-upload"  # (file ids, dataset name or refusal) of the files last read from the uploader

UPLOAD_HELP = ("Any layout the command line reads: one folder per system, flat STEM.DIRECTION.SYSTEM files "
               "(sentiment.test.0.mine) beside the inputs (sentiment.test.0), SYSTEM.tsv files of input<TAB>output "
               "lines, one folder per direction, or one folder per domain. References inside (reference.0) or "
               "uploaded beside the zip. Kept on this server under a hash of the files, so the page's link reopens "
               "them.")


def outputs_section() -> None:
    """The 'Compare released system outputs' box, then the uploaded outputs' choices and inventory.

    Outputs that can be compared become the session's dataset; a refusal is shown with every problem and
    stops the page, so nothing is computed on them (nor on the dataset used before).
    """
    with st.expander("Compare released system outputs (a .zip of a folder, or several files)"):
        _uploader()
    name = st.session_state.get(OUTPUTS_PENDING_KEY) or current_dataset_name()
    if not is_outputs(name):
        return
    try:
        kept = opened_outputs(name)
    except DataError as exc:
        show_error(exc)
        st.stop()
    try:
        kept.inventory.check()  # the command's refusal, word for word
        refusal = None
    except DataError as exc:
        refusal = exc
    if refusal is None and name != current_dataset_name():
        # In use from now: the link names them before their inventory is drawn (a link copied the moment it shows
        # reopens them, not the dataset used before), and the rerun draws the sidebar naming them.
        set_dataset(name)
        remember_dataset()
        st.rerun()
    _choices(kept)
    _inventory(kept)
    if refusal is not None:
        show_error(refusal)
        st.stop()


def _uploader() -> None:
    """Keep newly uploaded files and make them the outputs looked at; an unsafe zip is refused here."""
    files = st.file_uploader(f"System outputs: a .zip, or the files themselves (at most {size_limit_text()})",
                             accept_multiple_files=True, max_upload_size=max_upload_mb(), key="outputs-files")
    st.caption(literal(UPLOAD_HELP))
    if not files:
        if st.session_state.pop(_SEEN, None):  # files removed: stop looking at outputs not in use
            st.session_state.pop(OUTPUTS_PENDING_KEY, None)
        return
    ids = tuple(sorted(f.file_id for f in files))
    seen = st.session_state.get(_SEEN)
    if seen is None or seen[0] != ids:
        try:
            seen = (ids, save_outputs([(f.name, f.getvalue()) for f in files]))
            st.session_state[OUTPUTS_PENDING_KEY] = seen[1]
        except DataError as exc:
            seen = (ids, exc)
        st.session_state[_SEEN] = seen
    if isinstance(seen[1], DataError):
        show_error(seen[1])
        st.stop()


def _choices(kept: KeptOutputs) -> None:
    """The command's --domain, --humans and --directions, offered when they matter; a change names new outputs."""
    choice, inv = kept.choice, kept.inventory
    compared = kept.compared
    where = f", read from {compared.where(kept.folder.name)}" if compared.repository else ""
    st.markdown(f"**Uploaded outputs: {literal(compared.name)}** (from {literal(', '.join(kept.uploaded))}"
                f"{literal(where)})")
    widgets = []
    if len(kept.domains) > 1:
        names = [d.name for d in kept.domains]
        # A repository as released holds datasets (outputs/yelp beside data/yelp); a folder of folders, domains.
        label = "Dataset in the repository" if compared.repository else "Domain"
        widgets.append(lambda col: col.selectbox(
            label, names, index=names.index(compared.name), key=f"outputs-domain:{choice.key}", on_change=_choose,
            args=(choice, "domain"),
            help="The upload holds several datasets; the leaderboard compares one at a time (--subset)"))
    if choice.humans == "reference" or any(f.human for f in inv.files):
        widgets.append(lambda col: col.radio(
            "Human rewrites", ["system", "reference"], index=["system", "reference"].index(choice.humans),
            horizontal=True, key=f"outputs-humans:{choice.key}", on_change=_choose, args=(choice, "humans"),
            format_func={"system": "compared as a system", "reference": "used as references"}.get,
            help="Human rewrites released as a system (Human0/, human/, .human): --humans"))
    if choice.directions or any(f.direction and f.direction not in inv.styles for f in inv.files):
        widgets.append(lambda col: col.text_input(
            "Styles of the numeric directions", choice.directions, key=f"outputs-directions:{choice.key}",
            placeholder="0=negative>positive,1=positive>negative", on_change=_choose, args=(choice, "directions"),
            help="DIR=SOURCE>TARGET separated by commas (--directions); without them, style accuracy, G2, H2 and J "
                 "cannot be computed"))
    if widgets:
        for widget, col in zip(widgets, st.columns(3)):
            widget(col)
    if error := st.session_state.get(f"outputs-directions-error:{choice.key}"):
        st.error(literal(error), icon="⚠️")


def _choose(choice: OutputsChoice, field: str) -> None:
    """A choice changed (a callback, before the rerun): look at the outputs it names."""
    value = st.session_state[f"outputs-{field}:{choice.key}"]
    if field == "directions":
        value = value.strip()
        try:
            parse_direction_styles(value)  # a typo is said under the box; the comparison shown stays
        except DataError as exc:
            st.session_state[f"outputs-directions-error:{choice.key}"] = str(exc)
            return
        st.session_state.pop(f"outputs-directions-error:{choice.key}", None)
    st.session_state[OUTPUTS_PENDING_KEY] = choice.changed(**{field: value}).name


def _inventory(kept: KeptOutputs) -> None:
    """What will be compared, and from which file (the command's stderr table), and every problem found."""
    inv = kept.inventory
    table = inv.table()
    if not table["also"].astype(bool).any():  # no second copies: an empty column would only push the table wider
        table = table.drop(columns="also")
    systems = table[table["role"].isin(["system", "human"])]
    count = systems["system"].nunique()
    title = (f"Inventory: {count} system{'' if count == 1 else 's'} × {systems['direction'].nunique()} direction(s), "
             f"{len(inv.problems)} problem(s)")
    with st.expander(title, expanded=True):
        # Columns as wide as what they hold (a direction with its styles is never cut), the file column takes
        # what is left: the table fits 1400 px without scrolling sideways.
        config = {c: st.column_config.Column(width=_width(table[c], c)) for c in table.columns if c != "file"}
        if "also" in table:
            config["also"] = st.column_config.Column("also in", width=_width(table["also"], "also in"),
                                                     help="other files holding the same outputs (read once)")
        st.dataframe(table, hide_index=True, width="stretch", column_config=config, placeholder="")
        if inv.problems:
            st.markdown("**Problems**\n\n" + "\n".join(f"- {literal(p)}" for p in inv.problems))
        if inv.notes and not inv.problems:
            st.caption("  \n".join(f"ℹ️ {literal(n)}" for n in inv.notes))


def _width(values, head: str) -> int:
    """Pixels for a column's longest text (about 7.5 px a character at the table's font, plus padding)."""
    longest = max([len(head), *(len(str(v)) for v in values)])
    return int(min(max(longest * 7.5 + 28, 55), 300))


__all__ = ["outputs_section"]
