export interface AuditException {
  readonly advisory: string;
  readonly package: string;
  readonly reason: string;
}

export interface AuditVerdict {
  readonly available: boolean;
  readonly problem?: string;
  readonly blocking: string[];
  readonly excepted: string[];
}

export function auditVerdict(report: unknown, exceptions: readonly AuditException[]): AuditVerdict;
