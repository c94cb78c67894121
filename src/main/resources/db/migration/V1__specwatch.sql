-- specwatch's durable state in PostgreSQL (state.backend: postgres), shared by every replica.
-- JSON is kept as text: it is the same JSON the file backend writes (NaN included), read and
-- written by specwatch only.

-- Alert state, one row per evaluation shard; saved with compare-and-set on version, so a replica
-- that lost its shard to another (a check-in missed) cannot overwrite the newer state.
CREATE TABLE sw_alert_state (
  shard      integer     PRIMARY KEY,
  version    bigint      NOT NULL,
  state      text        NOT NULL,
  updated_at timestamptz NOT NULL,
  updated_by text        NOT NULL
);

-- The last evaluation of each shard (what the API and web UI of every replica show).
CREATE TABLE sw_shard_evaluation (
  shard        integer     PRIMARY KEY,
  evaluated_at timestamptz NOT NULL,
  evaluation   text        NOT NULL,
  instance     text        NOT NULL
);

-- Transition history (history.jsonl of the file backend).
CREATE TABLE sw_transition (
  id       bigserial   PRIMARY KEY,
  at       timestamptz NOT NULL,
  alert_id text        NOT NULL,
  sequence bigint      NOT NULL,
  kind     text        NOT NULL,
  body     text        NOT NULL,
  UNIQUE (alert_id, sequence)
);
CREATE INDEX sw_transition_at ON sw_transition (at);

-- The outbox: one row per transition and notifier, claimed with FOR UPDATE SKIP LOCKED and a
-- lease; the primary key makes a transition queued twice (a replica died between queueing and
-- recording it) one notification.
CREATE TABLE sw_outbox (
  id            text        PRIMARY KEY,
  notifier      text        NOT NULL,
  status        text        NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  created_at    timestamptz NOT NULL,
  next_attempt_at timestamptz NOT NULL,
  intent        text        NOT NULL,
  claimed_by    text,
  claimed_until timestamptz,
  finished_at   timestamptz,
  reason        text
);
CREATE INDEX sw_outbox_pending ON sw_outbox (created_at) WHERE status = 'pending';

-- Small keyed documents: Slack threads, alerts firing (repeats), the digest ledger.
CREATE TABLE sw_document (
  namespace  text        NOT NULL,
  key        text        NOT NULL,
  body       text        NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (namespace, key)
);

-- Silences.
CREATE TABLE sw_silence (
  id      text        PRIMARY KEY,
  ends_at timestamptz NOT NULL,
  body    text        NOT NULL
);

-- Which replica last ran which job, and when (served by /api/v1/cluster).
CREATE TABLE sw_job_run (
  job         text        PRIMARY KEY,
  instance    text        NOT NULL,
  started_at  timestamptz NOT NULL,
  finished_at timestamptz
);
