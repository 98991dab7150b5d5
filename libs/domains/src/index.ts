// Proof of a project's domain by a DNS TXT record (DESIGN.md, Projects, accounts, verification).
export { verificationRecord, newVerificationToken, type VerificationRecord } from './verification-record.js';
export { verifyDomain, type VerifyDomainOptions, type DomainVerification } from './domain-verifier.js';
export { isLoopbackOrigin } from '@spoor/schemas';
