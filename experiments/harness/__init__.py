"""The tournament machinery every experiment runs on.

Agents seated on duplicate deals (:mod:`.seating`), their games played in
worker processes with faults as forfeits (:mod:`.runner`), a results folder
that survives interruption (:mod:`.results`, :mod:`.stored`), ratings with
profile-likelihood intervals (:mod:`.ratings`), the sequential test (:mod:`.sprt`),
tournaments (:mod:`.tournament`) and their reports (:mod:`.report`,
:mod:`.plots`).
"""
