-- Demo credentials are well known (README, start banner), so they are marked as such: a live start disables every
-- one of them, whatever a store that once ran in the test environment remembers (merchants/demo.ts).
ALTER TABLE access_tokens ADD COLUMN demo boolean NOT NULL DEFAULT false;

-- Tokens made by earlier versions for the demo merchant: labelled 'demo' and granted to the 'Demo merchant' entity.
UPDATE access_tokens SET demo = true
 WHERE label = 'demo'
   AND id IN (SELECT g.token_id FROM access_token_entities g JOIN entities e ON e.id = g.entity_id WHERE e.name = 'Demo merchant');
