-- The questions people ask of a fleet, in DuckDB: the sections of fleet_summary.sql (Spark SQL,
-- run by `hciscope_fleet.py --summary`) with DuckDB's unnest for Spark's explode, over a view
-- named `fleet` of the job's Parquet rows or of `hciscope analyze DIR --format jsonl`.
-- `python3 integrations/spark/fleet_summary.py OUTPUT/fleet` (or FLEET.jsonl) runs them.
--
-- The rows are hciscope.fleet/2 (docs/FLEET.md): each rule record has `status` (over every
-- actor's findings), `judged_status` (over the app's findings and those not told apart from it,
-- `unknown`: the report's default verdict) and `findings_by_actor` {app, os, peer, unknown}; the
-- row's `errors`, `warnings`, `infos` are judged counts. Rows of hciscope.fleet/1 (an older
-- hciscope) carry no attribution and no os_version: their `status` stands in for
-- `judged_status`, the per-actor table leaves them out, their os_version is null (the runners
-- add the missing fields as nulls and say how many such rows there were).

-- name: fleet_overview
-- error_findings, warning_findings: judged counts (the row's errors and warnings).
SELECT coalesce(platform, 'unknown') AS platform,
       count(*) AS captures,
       count(*) FILTER (WHERE error IS NOT NULL) AS unreadable,
       sum(frames) AS frames,
       sum(connections) AS connections,
       sum(errors) AS error_findings,
       sum(warnings) AS warning_findings
FROM fleet
GROUP BY coalesce(platform, 'unknown')
ORDER BY platform;

-- name: violation_rate_by_rule
-- violated, judged, violation_rate: the default verdict, judged_status (the app's findings and
-- the unknown ones; a rule whose findings are all the system's or the peer's passes).
-- violated_any_actor: captures where the rule has a finding of any actor (status).
-- findings: every actor's.
SELECT r.rule AS rule,
       count(*) FILTER (WHERE coalesce(r.judged_status, r.status) = 'violated') AS violated,
       count(*) FILTER (WHERE coalesce(r.judged_status, r.status) <> 'not_evaluated') AS judged,
       count(*) FILTER (WHERE coalesce(r.judged_status, r.status) = 'violated') / nullif(count(*) FILTER (WHERE coalesce(r.judged_status, r.status) <> 'not_evaluated'), 0) AS violation_rate,
       count(*) FILTER (WHERE r.status = 'violated') AS violated_any_actor,
       sum(r.findings) AS findings
FROM fleet, unnest(rules) AS t(r)
GROUP BY r.rule
ORDER BY violation_rate DESC NULLS LAST, rule;

-- name: violation_rate_by_actor
-- One row per rule and actor (app, os, peer, unknown), from the rules' findings_by_actor:
-- captures where that actor had findings of the rule, captures where the rule was judged, their
-- ratio, and that actor's findings. Rows without attribution (hciscope.fleet/1) are left out.
SELECT x.r.rule AS rule,
       x.actor AS actor,
       count(*) FILTER (WHERE x.f > 0) AS captures_with_findings,
       count(*) FILTER (WHERE x.r.status <> 'not_evaluated') AS captures_judged,
       count(*) FILTER (WHERE x.f > 0) / nullif(count(*) FILTER (WHERE x.r.status <> 'not_evaluated'), 0) AS rate,
       sum(x.f) AS findings
FROM (SELECT r, a.actor AS actor,
             CASE a.actor WHEN 'app' THEN r.findings_by_actor.app WHEN 'os' THEN r.findings_by_actor.os
                          WHEN 'peer' THEN r.findings_by_actor.peer ELSE r.findings_by_actor."unknown" END AS f
      FROM fleet CROSS JOIN (VALUES ('app'), ('os'), ('peer'), ('unknown')) AS a(actor),
           unnest(rules) AS t(r)
      WHERE r.findings_by_actor IS NOT NULL) AS x
GROUP BY x.r.rule, x.actor
ORDER BY rule, actor;

-- name: discovery_cost_by_platform
-- Quantiles over the captures' discovery_ms (each capture's median; hciscope.fleet/1: its mean).
SELECT coalesce(platform, 'unknown') AS platform,
       os_version,
       count(*) AS captures,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY figures.discovery_ms) AS p50_discovery_ms,
       percentile_cont(0.9) WITHIN GROUP (ORDER BY figures.discovery_ms) AS p90_discovery_ms,
       percentile_cont(0.99) WITHIN GROUP (ORDER BY figures.discovery_ms) AS p99_discovery_ms,
       max(figures.discovery_ms) AS max_discovery_ms,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY figures.discovery_radio_on_ms) AS p50_discovery_radio_on_ms,
       percentile_cont(0.9) WITHIN GROUP (ORDER BY figures.discovery_radio_on_ms) AS p90_discovery_radio_on_ms,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY figures.discovery_reports) AS p50_discovery_reports,
       percentile_cont(0.9) WITHIN GROUP (ORDER BY figures.discovery_reports) AS p90_discovery_reports
FROM fleet
WHERE error IS NULL AND figures.discovery_ms IS NOT NULL
GROUP BY coalesce(platform, 'unknown'), os_version
ORDER BY platform, os_version;

-- name: duplicate_scan_overhead
SELECT coalesce(platform, 'unknown') AS platform,
       count(*) AS captures,
       sum(figures.reports) AS reports,
       sum(figures.duplicate_reports) AS duplicate_reports,
       sum(figures.duplicate_reports) / sum(figures.reports) AS fleet_duplicate_ratio,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY figures.duplicate_ratio) AS p50_duplicate_ratio,
       percentile_cont(0.9) WITHIN GROUP (ORDER BY figures.duplicate_ratio) AS p90_duplicate_ratio,
       percentile_cont(0.99) WITHIN GROUP (ORDER BY figures.duplicate_ratio) AS p99_duplicate_ratio,
       max(figures.duplicate_ratio) AS max_duplicate_ratio,
       sum(figures.duplicate_event_bytes) AS duplicate_event_bytes
FROM fleet
WHERE error IS NULL AND figures.reports > 0
GROUP BY coalesce(platform, 'unknown')
ORDER BY platform;

-- name: duplicate_scan_overhead_histogram
SELECT least(floor(figures.duplicate_ratio * 10), 9) / 10 AS duplicate_ratio_from,
       count(*) AS captures
FROM fleet
WHERE error IS NULL AND figures.reports > 0
GROUP BY least(floor(figures.duplicate_ratio * 10), 9) / 10
ORDER BY duplicate_ratio_from;

-- name: link_loss_rate
-- Over every actor's findings (status): a lost link is lost whoever caused it.
SELECT count(*) FILTER (WHERE r.status <> 'not_evaluated') AS captures_judged,
       count(*) FILTER (WHERE r.status = 'violated') AS captures_with_link_loss,
       count(*) FILTER (WHERE r.status = 'violated') / nullif(count(*) FILTER (WHERE r.status <> 'not_evaluated'), 0) AS capture_link_loss_rate,
       sum(r.findings) AS link_losses,
       sum(connections) FILTER (WHERE r.status <> 'not_evaluated') AS connections,
       sum(r.findings) / nullif(sum(connections) FILTER (WHERE r.status <> 'not_evaluated'), 0) AS link_losses_per_connection
FROM fleet, unnest(rules) AS t(r)
WHERE r.rule = 'conn.link-lost';
