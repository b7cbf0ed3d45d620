-- A channel setting: the reveal notifies (pings) the members who got it right. Off by default.
ALTER TABLE channels ADD COLUMN ping_winners INTEGER NOT NULL DEFAULT 0;
