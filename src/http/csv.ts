/** RFC 4180 fields: quoted only when they hold a comma, a quote or a line break. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export const csvLine = (fields: string[]) => fields.map(csvField).join(',') + '\n';
