-- report: local_days
-- The local calendar days from $first to $last in zone $tz: the UTC instant
-- (epoch ms) each starts at, and its day, week and month keys written as the
-- report templates write them (see src/report/groups.ts). The delta path
-- (src/report/summary-delta.ts) files new responses under these days without
-- DuckDB. `consistent` is false where the local midnight is not the first
-- instant of its day (a DST gap at midnight); the delta path then gives way.
-- param: first DATE              first local day
-- param: last DATE               last local day
-- param: tz VARCHAR              IANA zone
-- column: day VARCHAR            YYYY-MM-DD
-- column: week VARCHAR           ISO week YYYY-Www
-- column: month VARCHAR          YYYY-MM
-- column: start_ms BIGINT        UTC epoch ms of the day's first instant
-- column: consistent BOOLEAN     start_ms falls on the day and the instant before it on an earlier day
WITH d AS (
  SELECT CAST(x AS DATE) AS day
  FROM range(CAST($first AS TIMESTAMP), CAST($last AS TIMESTAMP) + INTERVAL 1 DAY, INTERVAL 1 DAY) t(x)
),
s AS (
  SELECT day, epoch_ms(timezone($tz, CAST(day AS TIMESTAMP))) AS start_ms FROM d
)
SELECT strftime(day, '%Y-%m-%d') AS day,
       strftime(day, '%G-W%V') AS week,
       strftime(day, '%Y-%m') AS month,
       start_ms,
       CAST(timezone($tz, make_timestamptz(start_ms * 1000)) AS DATE) = day
         AND CAST(timezone($tz, make_timestamptz((start_ms - 1) * 1000)) AS DATE) < day AS consistent
FROM s
ORDER BY day
