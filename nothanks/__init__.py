"""nothanks: ACT-R theory-of-mind models playing No Thanks!"""
__version__ = "0.1.0"
