"""Described tattoos as OTROS_SUJETO_ASISTENCIA: deid_crf.deid.recognizers.marks."""

from __future__ import annotations

import pytest

from deid_crf.deid.recognizers.marks import find_tattoos


@pytest.mark.parametrize(
    ("text", "want"),
    [
        (
            "Señas particulares: tatuaje del escudo del FC Shakhtar en antebrazo derecho.\n",
            ["tatuaje del escudo del FC Shakhtar en antebrazo derecho"],
        ),
        ("Señas: tatuaje de un ancla en la muñeca izquierda. Rx", ["tatuaje de un ancla en la muñeca izquierda"]),
        ("TATUAJE DE UNA ROSA EN EL CUELLO\n", ["TATUAJE DE UNA ROSA EN EL CUELLO"]),
        # the clause ends the phrase
        ("tatuaje con el nombre de su hija (Laia) en el brazo", ["tatuaje con el nombre de su hija"]),
        # mentioned, not described: nothing
        ("Sin tatuajes ni piercings.", []),
        ("Portador de tatuajes en ambos brazos.", []),
        ("atribuir los cambios de la adenopatía al tatuaje de la paciente, con el resultado", []),
        ("revisión del tatuaje del paciente.", []),
    ],
)
def test_tattoos(text: str, want: list[str]):
    assert [text[a:b] for a, b, _ in find_tattoos(text)] == want
