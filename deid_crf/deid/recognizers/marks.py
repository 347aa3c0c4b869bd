"""Distinguishing marks (OTROS_SUJETO_ASISTENCIA, P28.1, whose examples name tattoos):
a described tattoo, the whole descriptive phrase (``tatuaje del escudo del FC Shakhtar en
antebrazo derecho``, ``tatuaje de un ancla en la muñeca izquierda``), as the project's
notes annotate it. A tattoo only mentioned (``sin tatuajes``, ``tatuajes en ambos
brazos``) describes nobody and is left alone: the phrase needs ``de``, ``del`` or
``con`` after the word, and not only a person after them (``el tatuaje de la
paciente``, the one MEDDOCAN dev mentions, unannotated). It ends at the clause: a full
stop, a semicolon, a comma, a bracket or the end of the line. After a field's label
(``Tatuaje: baobab y luna en antebrazo izquierdo``) the description alone is the span.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from deid_crf.deid.recognizers.common import OTHER_SUBJECT, SP, Match

# Whose tattoo it is, and nothing about it: "de la paciente", "del enfermo", "de su hijo".
_PERSON_ONLY = (
    rf"(?i:(?:(?:el|la|los|las|su|sus|este|esta){SP}+)?(?:paciente|enferm[oa]|usuari[oa]|niñ[oa]|chic[oa]"
    rf"|joven|var[oó]n|mujer|hombre|señora?|hij[oa]|madre|padre|pareja)s?{SP}*(?:[.;,:()\[\]\n]|$))"
)
_TATTOO = re.compile(
    rf"(?i:\btatuajes?{SP}+(?:de|del|con){SP}+)(?!{_PERSON_ONLY})"
    rf"[^.;,:()\[\]\n]{{2,100}}?(?=\s*[.;,:()\[\]\n]|\s*$)"
)


# A tattoo described after a field's label (``Tatuaje: baobab y luna en antebrazo
# izquierdo``): the description, the label left out (G2); not a negative one.
_TATTOO_FIELD = re.compile(
    rf"(?i:\btatuajes?{SP}*:{SP}*)(?!(?i:no|sin|ninguno|niega|negativo|-)\b)"
    rf"(?P<what>[^\s.;,:()\[\]][^.;,:()\[\]\n]{{1,99}}?)(?=\s*[.;,:()\[\]\n]|\s*$)"
)


def find_tattoos(text: str) -> Iterator[Match]:
    """Described tattoos (see the module)."""
    if "atuaje" not in text and "ATUAJE" not in text:
        return
    for m in _TATTOO.finditer(text):
        yield m.start(), m.end(), OTHER_SUBJECT
    for m in _TATTOO_FIELD.finditer(text):
        yield m.start("what"), m.end("what"), OTHER_SUBJECT
