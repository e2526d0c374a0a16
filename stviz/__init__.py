"""stviz: explore how text style transfer is evaluated.

The computation library behind the dashboard and the command line. Nothing in this package
imports streamlit: pages call into it, never the other way round.
"""

__version__ = "0.1.0"
