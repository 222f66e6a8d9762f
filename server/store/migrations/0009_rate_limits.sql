-- Request limits counted in the database, so every gateway instance sharing it enforces the same ones
-- (throttling/limiter.ts): one row per counted request, per bucket ("payment-read:<entity>:<id>", ...), kept for
-- the limit's window and pruned by an hourly job. They replace the checkout status reads' own table.
CREATE TABLE rate_limit_hits (
  bucket  text NOT NULL,
  hit_at  timestamptz NOT NULL
);
CREATE INDEX rate_limit_hits_bucket_idx ON rate_limit_hits (bucket, hit_at);

DROP TABLE checkout_status_reads;
