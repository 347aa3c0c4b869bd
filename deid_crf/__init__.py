"""deid-crf: find and remove protected health information in Spanish clinical text.

>>> from deid_crf import DeidTagger
>>> tagger = DeidTagger.load("models/crf")
>>> tagger.tag_texts(["Nombre: Ernesto."])      # doctest: +SKIP
[[Entity(start=8, end=15, type='NOMBRE_SUJETO_ASISTENCIA')]]
"""

from .corpus import Document, Entity
from .tagger import DeidTagger

__all__ = ["DeidTagger", "Document", "Entity"]
__version__ = "0.1.0"
