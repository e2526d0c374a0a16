"""Bytes of a user's text file to text: the one decoder of every file a user brings.

The byte-order mark decides (UTF-8, UTF-16 and UTF-32, as Excel's "Unicode Text" export writes),
then the NUL-byte pattern of UTF-16 without a mark, then UTF-8. A file that is not UTF-8 is decoded
line by line: a line that is UTF-8 stays UTF-8, and only the lines that are not are decoded as
Windows-1252, each named in a note. One stray Windows-1252 line in a UTF-8 file must not re-decode
(and garble) every accent of the rest. ``encoding`` (the CLI's ``--encoding``) overrides all this.
"""

from __future__ import annotations

import codecs

from stviz.data.schema import DataError

_BOMS = ((codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32"), (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32"),
         (codecs.BOM_UTF8, "utf-8", "UTF-8"), (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16"),
         (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16"))


def decode_text(data: bytes, filename: str, notes: list[str], encoding: str | None = None) -> str:
    """Bytes to text: ``encoding`` if given, else by byte-order mark, UTF-16 without one, UTF-8 (line by line)."""
    if encoding:
        return _given_encoding(data, encoding, filename)
    for bom, codec, name in _BOMS:  # UTF-32 LE starts like UTF-16 LE, so it is tried first
        if data.startswith(bom):
            return _strict_decode(data[len(bom):], codec, name, filename, notes)
    utf16 = _utf16_without_bom(data)
    if utf16:
        return _strict_decode(data, utf16, "UTF-16", filename, notes)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return _decode_by_line(data, filename, notes)


def _given_encoding(data: bytes, encoding: str, filename: str) -> str:
    try:
        codecs.lookup(encoding)
    except LookupError as exc:
        raise DataError(f"--encoding: '{encoding}' is not an encoding Python knows (e.g. utf-8, cp1252, latin-1, "
                        "utf-16)") from exc
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise DataError(f"'{filename}' line {line} cannot be decoded as {encoding} (byte 0x{data[exc.start]:02X}); "
                        "choose another --encoding, or leave it out to detect it") from exc


def _decode_by_line(data: bytes, filename: str, notes: list[str]) -> str:
    """UTF-8 per line; the lines that are not UTF-8 decoded as Windows-1252 (Latin-1 for its 5 unused bytes)."""
    lines = data.split(b"\n")
    out, bad, utf8_accents = [], [], False
    for number, raw in enumerate(lines, 1):
        try:
            out.append(raw.decode("utf-8"))
            utf8_accents = utf8_accents or not raw.isascii()
        except UnicodeDecodeError as exc:
            bad.append((number, raw[exc.start]))
            try:
                out.append(raw.decode("cp1252"))
            except UnicodeDecodeError:
                out.append(raw.decode("latin-1"))  # latin-1 decodes any byte
    first, byte = bad[0]
    if utf8_accents:  # a UTF-8 file with a few foreign lines: only those are decoded otherwise
        shown = ", ".join(str(n) for n, _ in bad[:10]) + (f" and {len(bad) - 10:,} more" if len(bad) > 10 else "")
        notes.append(f"'{filename}' is UTF-8 but {len(bad):,} line(s) are not (line {first} has the byte 0x{byte:02X}): "
                     f"lines {shown} were decoded as Windows-1252, the rest as UTF-8. Check the accented characters "
                     "of those lines, or re-save the file as UTF-8 (--encoding ENC reads it all in one encoding).")
    else:
        notes.append(f"'{filename}' is not UTF-8 (line {first} has the byte 0x{byte:02X}); it was decoded as "
                     "Windows-1252. Check accented characters, or re-save as UTF-8.")
    return "\n".join(out)


def _strict_decode(data: bytes, encoding: str, name: str, filename: str, notes: list[str]) -> str:
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise DataError(f"'{filename}' looks like {name} text but byte {exc.start} cannot be decoded as {name}; "
                        "re-save it as UTF-8 (or name its encoding with --encoding)") from exc
    if name != "UTF-8":
        notes.append(f"'{filename}' is {name} text ({encoding[-2:].upper()}); it was decoded as such.")
    return text


def _utf16_without_bom(data: bytes) -> str | None:
    """'utf-16-le' / 'utf-16-be' when most characters of the start are ASCII with a NUL byte beside them."""
    sample = data[:4096]
    sample = sample[: len(sample) - len(sample) % 2]
    if len(sample) < 4:
        return None
    even, odd = sample[0::2], sample[1::2]
    zeros_even, zeros_odd = even.count(0) / len(even), odd.count(0) / len(odd)
    if zeros_odd > 0.4 and zeros_even < 0.05:
        return "utf-16-le"
    if zeros_even > 0.4 and zeros_odd < 0.05:
        return "utf-16-be"
    return None
