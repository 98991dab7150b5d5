export interface ProjectRecord {
  project_id: string;
  origin: string;
  project: string;
  account_id: string;
  verified: boolean;
  verification_token: string;
  created_at: number;
}
