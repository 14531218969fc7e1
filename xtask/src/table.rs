//! Plain-text tables for a terminal: columns side by side, cells wrapped at
//! word boundaries so no line is wider than the width asked for.

/// Spaces between two columns.
const GAP: &str = "  ";

/// One column of a [`Table`].
pub struct Column {
    /// The header text (wrapped like a cell if it must be).
    pub header: String,
}

impl Column {
    /// A column as wide as its content allows.
    pub fn new(header: impl Into<String>) -> Column {
        Column {
            header: header.into(),
        }
    }
}

/// A table of text cells; a `\n` in a cell starts a new line in it.
pub struct Table {
    columns: Vec<Column>,
    rows: Vec<Vec<String>>,
}

fn width_of(text: &str) -> usize {
    text.chars().count()
}

impl Table {
    /// An empty table with these columns.
    pub fn new(columns: Vec<Column>) -> Table {
        Table {
            columns,
            rows: Vec::new(),
        }
    }

    /// Adds a row; missing cells are empty, extra cells are dropped.
    pub fn push(&mut self, mut row: Vec<String>) {
        row.resize(self.columns.len(), String::new());
        self.rows.push(row);
    }

    /// The column widths that fit `width`: every column as wide as its
    /// content if that fits; otherwise the narrow
    /// columns keep their width and the others share what is left evenly.
    fn widths(&self, width: usize) -> Vec<usize> {
        let count = self.columns.len();
        let gaps = width_of(GAP) * count.saturating_sub(1);
        let available = width.saturating_sub(gaps).max(count);
        let wanted: Vec<usize> = self
            .columns
            .iter()
            .enumerate()
            .map(|(i, column)| {
                std::iter::once(column.header.as_str())
                    .chain(self.rows.iter().map(|row| row[i].as_str()))
                    .flat_map(str::lines)
                    .map(width_of)
                    .max()
                    .unwrap_or(0)
                    .max(1)
            })
            .collect();
        let mut widths = vec![0; count];
        let mut open: Vec<usize> = (0..count).collect();
        let mut left = available;
        // Water-filling: settle every column that wants no more than an even
        // share, then split the rest evenly among the columns still open.
        loop {
            let share = left / open.len().max(1);
            let (settled, still_open): (Vec<usize>, Vec<usize>) =
                open.iter().partition(|&&i| wanted[i] <= share);
            if settled.is_empty() {
                break;
            }
            for i in settled {
                widths[i] = wanted[i];
                left -= wanted[i];
            }
            open = still_open;
            if open.is_empty() {
                return widths;
            }
        }
        let share = left / open.len();
        let mut extra = left % open.len();
        for i in open {
            widths[i] = share + usize::from(extra > 0);
            extra = extra.saturating_sub(1);
        }
        widths
    }

    /// The table as lines no wider than `width` (when `width` leaves at
    /// least one character per column), each ending in `\n`, without
    /// trailing spaces.
    pub fn render(&self, width: usize) -> String {
        let widths = self.widths(width);
        let mut out = String::new();
        let headers: Vec<String> = self.columns.iter().map(|c| c.header.clone()).collect();
        push_row(&mut out, &headers, &widths);
        let rules: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
        push_row(&mut out, &rules, &widths);
        for row in &self.rows {
            push_row(&mut out, row, &widths);
        }
        out
    }
}

fn push_row(out: &mut String, cells: &[String], widths: &[usize]) {
    let wrapped: Vec<Vec<String>> = cells
        .iter()
        .zip(widths)
        .map(|(cell, width)| wrap(cell, *width))
        .collect();
    let height = wrapped.iter().map(Vec::len).max().unwrap_or(0);
    for line in 0..height {
        let mut text = String::new();
        for (column, (lines, width)) in wrapped.iter().zip(widths).enumerate() {
            if column > 0 {
                text.push_str(GAP);
            }
            let part = lines.get(line).map_or("", String::as_str);
            text.push_str(part);
            text.push_str(&" ".repeat(width.saturating_sub(width_of(part))));
        }
        out.push_str(text.trim_end());
        out.push('\n');
    }
}

/// `text` broken into lines of at most `width` characters: at each `\n`,
/// then between words; a word longer than `width` is cut.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    for paragraph in text.split('\n') {
        let mut line = String::new();
        for word in paragraph.split(' ').filter(|w| !w.is_empty()) {
            let chars: Vec<char> = word.chars().collect();
            for piece in chars.chunks(width) {
                let piece: String = piece.iter().collect();
                let needed =
                    width_of(&line) + usize::from(!line.is_empty()) + piece.chars().count();
                if !line.is_empty() && needed > width {
                    lines.push(std::mem::take(&mut line));
                }
                if !line.is_empty() {
                    line.push(' ');
                }
                line.push_str(&piece);
            }
        }
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_breaks_between_words_and_cuts_long_words() {
        assert_eq!(
            wrap("acked @1; follower at ack", 10),
            ["acked @1;", "follower", "at ack"]
        );
        assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap("one\ntwo three", 20), ["one", "two three"]);
        assert_eq!(wrap("", 5), [""]);
    }

    #[test]
    fn narrow_columns_keep_their_width_and_wide_ones_share_the_rest() {
        let mut table = Table::new(vec![Column::new("#"), Column::new("a"), Column::new("b")]);
        table.push(vec!["1".into(), "x ".repeat(40), "y ".repeat(40)]);
        assert_eq!(table.widths(30), [1, 13, 12]);
        for line in table.render(30).lines() {
            assert!(line.chars().count() <= 30, "{line:?}");
        }
    }

    #[test]
    fn a_table_that_fits_is_as_wide_as_its_content() {
        let mut table = Table::new(vec![Column::new("protocol"), Column::new("lvl")]);
        table.push(vec!["isr".into(), "stale".into()]);
        assert_eq!(
            table.render(100),
            "protocol  lvl\n--------  -----\nisr       stale\n"
        );
    }
}
