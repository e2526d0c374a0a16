"""Plotly figure builders: tidy DataFrame in, figure out (one module per view)."""
