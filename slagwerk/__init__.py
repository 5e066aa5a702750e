"""slagwerk: AI opponents for hidden-information trick-taking card games."""

__version__ = "0.1.0"
