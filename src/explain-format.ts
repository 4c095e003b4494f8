/**
 * `nemo-lens explain` as text for a terminal: aligned tables, colour only when asked for
 * (the CLI asks when stdout is a TTY that has colours and NO_COLOR is unset).
 */
import type { Explanation } from './explain';

interface Style {
  readonly bold: (text: string) => string;
  readonly dim: (text: string) => string;
  readonly green: (text: string) => string;
  readonly yellow: (text: string) => string;
}

const ansi = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;
const COLOURS: Style = { bold: ansi(1, 22), dim: ansi(2, 22), green: ansi(32, 39), yellow: ansi(33, 39) };
const PLAIN: Style = { bold: (t) => t, dim: (t) => t, green: (t) => t, yellow: (t) => t };

/** Rows padded to their columns' widths; `paint` styles a cell after padding, so colour codes never shift columns. */
function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>, style: Style, paint?: (row: number, column: number, cell: string) => string): string[] {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: readonly string[]) => cells.map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!)));
  return [
    `  ${style.dim(line(header).join('  '))}`,
    ...rows.map((row, r) => `  ${line(row).map((cell, column) => (paint ? paint(r, column, cell) : cell)).join('  ')}`),
  ];
}

const quoted = (names: readonly string[]) => (names.length === 0 ? '(none)' : names.join(', '));

export function formatExplanation(report: Explanation, colour: boolean): string {
  const style = colour ? COLOURS : PLAIN;
  const out: string[] = [];
  const source = report.specSource === 'argument' ? 'from the command line' : report.specSource === 'default' ? 'the default; NEMO_LENS_SPAN_GROUPS is unset' : 'from NEMO_LENS_SPAN_GROUPS';
  out.push(`${style.bold('nemo-lens explain')}: spec "${report.spec}" (${source}), ${report.backend} core, namespaces: ${quoted(report.namespaces)}`);
  out.push('');
  out.push(`${style.bold(`Enabled (${report.enabled.length})`)}: ${report.enabled.length === 0 ? style.yellow('nothing: no span will be emitted') : style.green(report.enabled.join(', '))}`);

  out.push('', style.bold('Groups'));
  if (report.groups.length === 0) out.push('  (no namespace registered any group: pass the libraries with --require)');
  else {
    const rows = report.groups.map((g) => [g.name, `${g.owners.join(', ')}${g.shared ? ' (shared)' : ''}`, g.enabled ? 'yes' : 'no']);
    out.push(...table(['group', 'owners', 'enabled'], rows, style, (r, column, cell) => (column === 2 && report.groups[r]!.enabled ? style.green(cell) : column === 1 && report.groups[r]!.shared ? style.yellow(cell) : cell)));
    if (report.groups.some((g) => g.shared)) out.push(`  ${style.dim('(shared): registered by several namespaces; one gate turns on all their spans')}`);
  }

  out.push('', style.bold('Presets'));
  const presetRows = report.presets.map((p) => [p.namespace, p.name, `${quoted(p.members)}${p.unregistered.length > 0 ? ` (not registered: ${p.unregistered.join(', ')})` : ''}`]);
  presetRows.push(['(merged)', 'all', quoted(report.mergedPresets['all'] ?? [])]);
  out.push(...table(['namespace', 'preset', 'groups'], presetRows, style, (r, column, cell) => (column === 2 && (report.presets[r]?.unregistered.length ?? 0) > 0 ? style.yellow(cell) : cell)));

  if (report.pending.length > 0) {
    out.push('', style.bold(`Pending (${report.pending.length}): spec tokens that name nothing here`));
    const rows = report.pending.map((p) => [p.token, p.suggestion === null ? '(no close name; fine if another process of the job registers it)' : `did you mean "${p.suggestion}"?`]);
    out.push(...table(['token', 'suggestion'], rows, style, (r, column, cell) => (column === 0 ? style.yellow(cell) : cell)));
  }

  if (report.warnings.length > 0) {
    out.push('', style.bold(`Warnings (${report.warnings.length}), as this process would print them`));
    for (const w of report.warnings) out.push(`  ${style.yellow(w.code)}: ${w.message}`);
  }
  return `${out.join('\n')}\n`;
}
