"""deid-crf: find and remove protected health information in Spanish clinical text.

>>> from deid_crf import DeidTagger
>>> tagger = DeidTagger.load("models/crf")
>>> tagger.tag_texts(["Nombre: Ernesto."])      # doctest: +SKIP
[[Entity(start=8, end=15, type='NOMBRE_SUJETO_ASISTENCIA')]]

>>> import deid_crf
>>> deid = deid_crf.load("models/crf", seed=7)  # model + rule layer + surrogates
>>> deid.deidentify("Nombre: Ernesto.", mode="masked").text      # doctest: +SKIP
'Nombre: [NOMBRE_SUJETO_ASISTENCIA].'
"""

from typing import TYPE_CHECKING

from deid_crf.text.document import Document, Entity

if TYPE_CHECKING:
    from deid_crf.deid.deidentifier import Deidentifier, Result, load
    from deid_crf.models.crf_tagger import DeidTagger

__all__ = ["DeidTagger", "Deidentifier", "Document", "Entity", "Result", "load"]


def __getattr__(name: str):
    # The tagger (scikit-learn, CRFsuite) and the de-identification API (Faker) load on
    # first use, so that importing the package, or any module of it, stays light.
    if name == "DeidTagger":
        from deid_crf.models.crf_tagger import DeidTagger

        return DeidTagger
    if name in ("Deidentifier", "Result", "load"):
        from deid_crf.deid import deidentifier as deidentify

        return getattr(deidentify, name)
    raise AttributeError(f"module 'deid_crf' has no attribute {name!r}")


__version__ = "0.1.0"
