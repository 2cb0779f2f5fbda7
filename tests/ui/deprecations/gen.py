#!/usr/bin/env python3
"""Writes the input-deprecation cases (docs/reference.md#deprecated-inputs):

* `tests/ui/deprecations/`: a valid two-layer closure whose top layer
  deprecates inputs, and facts files that state them (the warnings W012 and
  W013 and their refusal E134 are pinned by `lawgen/cli/tests/deprecated_inputs.rs`);
* `tests/ui/imports/e13x_*/`: top layers whose deprecations do not check
  (E130-E133), and a facts file refused under `--deny-deprecated` (E134),
  pinned by `lawgen/cli/tests/imports.rs` like the other closure errors.

The packages are written in the text form and converted by `lawgen convert`,
which computes every hash. Run from the workspace root after `cargo build -p lawgen`:
`python3 tests/ui/deprecations/gen.py`."""
import json, os, re, subprocess, sys

LAWGEN = os.environ.get("LAWGEN", "target/debug/lawgen")
HERE = "tests/ui/deprecations"
IMPORTS = "tests/ui/imports"

BASE = '''schema "law.core.ir/0.2"
package "ui.base" namespace "urn:ui:base" semantic_hash "sha256:0000000000000000000000000000000000000000000000000000000000000000" version "1.0.0"
set features = ["core-executable"]
set metadata = {}
set semanticHash = "sha256:2222222222222222222222222222222222222222222222222222222222222222"
set semanticVersion = "1.0.0"
set strata = []
set imports = []
default package "urn:ui:base"
default label {"language":"en","status":"official"}
default text {"language":"en","status":"official"}

type Game
  label "game"

type Player
  label "player"

relation empirical player_of(game: Game, player: Player)
  label "the player plays the game"

relation empirical resigned(player: Player)
  label "the player resigned (no game named)"

relation institutional lost(game: Game, player: Player)
  label "the player has lost the game"

work RULES
  authority Authority
  source_kind regulation
  label "RULES"

edition RULES_1 of RULES
  label "RULES, first edition"

fragment ART_1
  in RULES_1
  fragment_kind "article"
  locator "article/1"
  label "article/1"
  text "Article 1. A player who resigns loses."

rule ResignationLoses strict
  lost(g, p) :- player_of(g, p), resigned(p)
  vars [g: Game, p: Player]
  anchors [ART_1]
  label "a player who resigned has lost"
'''

TOP = '''schema "law.core.ir/0.2"
package "ui.top" namespace "urn:ui:top" semantic_hash "sha256:0000000000000000000000000000000000000000000000000000000000000000" version "1.0.0"
set features = ["core-executable"]
set metadata = {}
set semanticHash = "sha256:3333333333333333333333333333333333333333333333333333333333333333"
set semanticVersion = "1.0.0"
set strata = []
import "ui.base" namespace "urn:ui:base" semantic_hash "sha256:2222222222222222222222222222222222222222222222222222222222222222" version "1.0.0"
default package "urn:ui:top"
default label {"language":"en","status":"official"}
default text {"language":"en","status":"official"}

relation empirical resigned_in(game: "urn:ui:base#Game", player: "urn:ui:base#Player")
  label "the player resigned this game"

relation empirical conceded(game: "urn:ui:base#Game", player: "urn:ui:base#Player")
  label "the player conceded this game (the old word)"

work MORE
  authority Authority
  source_kind regulation
  label "MORE"

edition MORE_1 of MORE
  label "MORE, first edition"

fragment ART_9
  in MORE_1
  fragment_kind "article"
  locator "article/9"
  label "article/9"
  text "Article 9. A player who resigns a game loses that game."

rule ResignationInGameLoses strict
  "urn:ui:base#lost"(g, p) :- resigned_in(g, p)
  vars [g: "urn:ui:base#Game", p: "urn:ui:base#Player"]
  anchors [ART_9]
  label "a player who resigned this game has lost it"

rule ConcessionLoses strict
  "urn:ui:base#lost"(g, p) :- conceded(g, p)
  vars [g: "urn:ui:base#Game", p: "urn:ui:base#Player"]
  anchors [ART_9]
  label "a player who conceded this game has lost it"
'''

RESIGNED = '''deprecation ResignedNamesNoGame
  deprecates "urn:ui:base#resigned"
  validity "one_per_file"
  per_type "urn:ui:base#Game"
  replaced_by [resigned_in]
  anchors [ART_9]
  label "a resignation that names no game means one game"
'''

CONCEDED = '''deprecation ConcededIsOld
  deprecates conceded
  validity "deprecated"
  replaced_by [resigned_in]
  anchors [ART_9]
  label "say resigned_in"
'''

def convert(text, out):
    src = out + ".law"
    open(src, "w").write(text)
    subprocess.run([LAWGEN, "convert", src, out], check=True, capture_output=True)
    os.remove(src)
    # the pinned semanticHash of ui.base is the one written above
    return out

def write_case(d, top, facts=None, args=None):
    os.makedirs(d, exist_ok=True)
    convert(BASE, f"{d}/base.json")
    convert(top, f"{d}/root.json")
    open(f"{d}/args", "w").write(args or "")
    if facts is not None:
        json.dump(facts, open(f"{d}/facts.json", "w"), indent=2)

TWO_GAMES = {"facts": {"player_of": [["g1", "ann"], ["g1", "bob"], ["g2", "ann"], ["g2", "bob"]],
                       "resigned": [["ann"]], "conceded": [["g2", "bob"]]}}
ONE_GAME = {"facts": {"player_of": [["g1", "ann"], ["g1", "bob"]], "resigned": [["ann"]]}}

write_case(HERE, TOP + "\n" + RESIGNED + "\n" + CONCEDED)
os.remove(f"{HERE}/args")
json.dump(TWO_GAMES, open(f"{HERE}/two_games.facts.json", "w"), indent=2)
json.dump(ONE_GAME, open(f"{HERE}/one_game.facts.json", "w"), indent=2)
os.remove(f"{HERE}/facts.json") if os.path.exists(f"{HERE}/facts.json") else None

write_case(f"{IMPORTS}/e130_deprecation_of_a_derived_predicate",
           TOP + "\n" + RESIGNED.replace('"urn:ui:base#resigned"', '"urn:ui:base#lost"'))
write_case(f"{IMPORTS}/e131_deprecation_with_unknown_validity",
           TOP + "\n" + CONCEDED.replace('"deprecated"', '"obsolete"'))
write_case(f"{IMPORTS}/e132_deprecation_without_replacement",
           TOP + "\n" + CONCEDED.replace("replaced_by [resigned_in]", "replaced_by []"))
write_case(f"{IMPORTS}/e133_two_deprecations_of_one_predicate",
           TOP + "\n" + CONCEDED + "\n" + CONCEDED.replace("ConcededIsOld", "ConcededIsOldToo"))
write_case(f"{IMPORTS}/e134_deprecated_input_refused",
           TOP + "\n" + RESIGNED + "\n" + CONCEDED, facts=TWO_GAMES, args="--deny-deprecated\n")
