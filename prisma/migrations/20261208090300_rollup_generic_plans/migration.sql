-- The roll-up triggers plan their statements once (dispatch at scale, issue 18). Their statements
-- take the array of changed rows as a parameter, and plpgsql chose a custom plan for each value:
-- the totals upsert was planned anew at every result, about 1 ms of planning for 0.4 ms of work
-- (pg_stat_statements with track_planning, bench/dispatch-scale.ts). A generic plan fits every
-- array: the statements read it with unnest and touch rows by primary key.
ALTER FUNCTION "attempts_rollup"() SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION "attempts_rollup_apply"("attempts_rollup_row"[], BOOLEAN) SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION "attempts_harness_infos"() SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION "attempts_harness_infos_apply"("attempts_harness_info_row"[], BOOLEAN) SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION "run_events_tally"() SET plan_cache_mode = force_generic_plan;
