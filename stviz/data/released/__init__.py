"""System outputs as papers release them: a folder's layouts surveyed and checked (``output_layouts``,
``inventory``), each file read and aligned with its inputs (``outputs``), folders, zips and repositories as datasets."""
