-- Roles (issue 32): Discord's manager role (a space's setting, kept on each of its channels), the role the daily
-- question mentions (Discord) and the user group it mentions (Slack). NULL: off.
ALTER TABLE channels ADD COLUMN manager_role text;
ALTER TABLE channels ADD COLUMN ping_role text;
ALTER TABLE channels ADD COLUMN ping_group text;
