-- The schema declares these relations now, and the database holds them as
-- foreign keys. Rows that already point at nothing (left by a sign-up that
-- failed half-way, or an organisation erased before its invitations and
-- domains went with it) are removed first, so the constraints can be added.
DELETE FROM "memberships" m WHERE NOT EXISTS (SELECT 1 FROM "principals" p WHERE p.id = m.principal_id)
                              OR NOT EXISTS (SELECT 1 FROM "organizations" o WHERE o.id = m.org_id);
DELETE FROM "org_domains" d WHERE NOT EXISTS (SELECT 1 FROM "organizations" o WHERE o.id = d.org_id);
DELETE FROM "invitations" i WHERE NOT EXISTS (SELECT 1 FROM "organizations" o WHERE o.id = i.org_id);
DELETE FROM "catalog_credentials" c WHERE NOT EXISTS (SELECT 1 FROM "warehouses" w WHERE w.id = c.warehouse_id);
UPDATE "warehouses" w SET project_id = NULL WHERE project_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "projects" p WHERE p.id = w.project_id);

-- AddForeignKey
ALTER TABLE "warehouses" ADD CONSTRAINT "warehouses_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_principal_id_fkey" FOREIGN KEY ("principal_id") REFERENCES "principals"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "org_domains" ADD CONSTRAINT "org_domains_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "catalog_credentials" ADD CONSTRAINT "catalog_credentials_warehouse_id_fkey" FOREIGN KEY ("warehouse_id") REFERENCES "warehouses"("id") ON DELETE CASCADE ON UPDATE CASCADE;
