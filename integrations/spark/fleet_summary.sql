-- The questions people ask of a fleet, in Spark SQL, over the rows of hciscope_fleet.py (a view
-- named `fleet`: its Parquet output, or `hciscope analyze DIR --format jsonl` read as JSON).
-- `hciscope_fleet.py --summary` runs each section and writes it to OUTPUT/summary/NAME;
-- fleet_summary_duckdb.sql asks the same in DuckDB (fleet_summary.py runs those).
--
-- {actor} and {os_version} are filled in by the runner from what the rows carry: a section that
-- needs {actor} runs only when the rules' records carry `actor`; {os_version} is the rows'
-- OS version column when they have one, else a null (quantiles per platform only). Each runner
-- prints a note for what was missing.

-- name: fleet_overview
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
SELECT r.rule AS rule,
       count(*) FILTER (WHERE r.status = 'violated') AS violated,
       count(*) FILTER (WHERE r.status <> 'not_evaluated') AS judged,
       count(*) FILTER (WHERE r.status = 'violated') / nullif(count(*) FILTER (WHERE r.status <> 'not_evaluated'), 0) AS violation_rate,
       sum(r.findings) AS findings
FROM fleet LATERAL VIEW explode(rules) t AS r
GROUP BY r.rule
ORDER BY violation_rate DESC NULLS LAST, rule;

-- name: violation_rate_by_actor
SELECT r.rule AS rule,
       {actor} AS actor,
       count(*) FILTER (WHERE r.status = 'violated') AS violated,
       count(*) FILTER (WHERE r.status <> 'not_evaluated') AS judged,
       count(*) FILTER (WHERE r.status = 'violated') / nullif(count(*) FILTER (WHERE r.status <> 'not_evaluated'), 0) AS violation_rate,
       sum(r.findings) AS findings
FROM fleet LATERAL VIEW explode(rules) t AS r
GROUP BY r.rule, {actor}
ORDER BY rule, actor;

-- name: discovery_cost_by_platform
SELECT coalesce(platform, 'unknown') AS platform,
       {os_version} AS os_version,
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
GROUP BY coalesce(platform, 'unknown'), {os_version}
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
SELECT count(*) FILTER (WHERE r.status <> 'not_evaluated') AS captures_judged,
       count(*) FILTER (WHERE r.status = 'violated') AS captures_with_link_loss,
       count(*) FILTER (WHERE r.status = 'violated') / nullif(count(*) FILTER (WHERE r.status <> 'not_evaluated'), 0) AS capture_link_loss_rate,
       sum(r.findings) AS link_losses,
       sum(connections) FILTER (WHERE r.status <> 'not_evaluated') AS connections,
       sum(r.findings) / nullif(sum(connections) FILTER (WHERE r.status <> 'not_evaluated'), 0) AS link_losses_per_connection
FROM fleet LATERAL VIEW explode(rules) t AS r
WHERE r.rule = 'conn.link-lost';
