-- Who writes to a Slack channel next, for every replica (docs/NOTIFICATIONS.md, "Grouping"):
-- a write holds the channel until held_until (a dead holder's ends then); not_before is when the
-- next write may go (a second after the last, or a 429's Retry-After).
CREATE TABLE sw_slack_pace (
  channel    text        PRIMARY KEY,
  holder     text        NULL,
  held_until timestamptz NULL,
  not_before timestamptz NOT NULL
);
