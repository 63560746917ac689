"""The figures: ``data`` computes memscope's own figures' numbers once for both front ends,
``own`` a benchmark's own figure (its package's chart), ``plots`` draws them with matplotlib
(``memscope plot``) and ``chart_plot`` any chart.
"""
