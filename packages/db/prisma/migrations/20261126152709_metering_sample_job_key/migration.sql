-- AlterTable
ALTER TABLE "usage_samples" ADD COLUMN     "job_key" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "usage_samples_job_key_key" ON "usage_samples"("job_key");
