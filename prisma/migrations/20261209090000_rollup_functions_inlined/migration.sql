-- The roll-up triggers' row helpers inlined (dispatch at scale, issue 18). attempts_rollup_row_of
-- and attempts_rollup_status were declared IMMUTABLE, but their bodies cast an enum to text, which
-- Postgres counts as STABLE (enum_out): an IMMUTABLE SQL function whose body is not immutable is
-- never inlined, so every trigger call parsed and planned their bodies anew (0.14 ms a row; two
-- rows a result, one per attempt at a run's creation). Declared STABLE they are inlined into the
-- trigger's statement (EXPLAIN VERBOSE shows the expression, not the call). Nothing indexes them.
ALTER FUNCTION "attempts_rollup_row_of"(INT, "attempts") STABLE;
ALTER FUNCTION "attempts_rollup_status"("AttemptStatus") STABLE;
