-- When an access token was last used for an API request (to the minute: each instance writes it at most once a
-- minute per token, merchants/tokenAccessCache.ts), for the operator deciding which tokens to revoke. Null: not since
-- this column exists.
ALTER TABLE access_tokens ADD COLUMN last_used_at timestamptz;
