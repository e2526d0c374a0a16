"""The built-in public corpora: fetched or imported and checked against their manifest (``sources``), and each read
as its authors release it (``loaders`` and one module per corpus with its own layout)."""
