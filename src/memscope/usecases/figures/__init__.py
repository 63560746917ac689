"""The figures: ``data`` computes every figure's numbers once for both front ends,
``plots`` draws them with matplotlib (``memscope plot``).
"""
