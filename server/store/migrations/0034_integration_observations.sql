-- The integration report (issue 36 point 7): what a merchant's integration was seen leaning on that a live provider
-- may refuse or has retired, counted per entity, kind and detail (server/integration/observations.ts). Only what the
-- stored payments, checkouts and webhook attempts cannot tell afterwards is kept here: the credentials a request
-- authenticated with, parameters the gateway ignored or the spec deprecates, 3-D Secure refused for want of the
-- browser's data, the widget options a page set. A detail is a name (a parameter's, an option's) or a value the
-- spec fixes (a testMode), never a value a merchant typed; `example` is the id of a request or checkout it came with.
CREATE TABLE integration_observations (
  entity_id   char(32) NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
  kind        text NOT NULL,
  detail      text NOT NULL DEFAULT '',
  count       bigint NOT NULL,
  first_seen  timestamptz NOT NULL,
  last_seen   timestamptz NOT NULL,
  example     text,
  PRIMARY KEY (entity_id, kind, detail)
);
