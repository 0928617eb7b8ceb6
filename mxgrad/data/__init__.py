"""Data files shipped with mxgrad (see README.md beside this file): the 8x8 digits that
``python -m mxgrad.demo``, the notebooks and ``gluon.data.vision.Digits`` use, and small
MXNet-made files the notebooks read. A package so that setuptools ships it as one."""
