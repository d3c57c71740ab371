// An offline stand-in for Google Charts' loader (https://www.gstatic.com/charts/loader.js), which
// the PyTorch profiler TensorBoard plugin loads from the network. Served to headless Chromium by
// tensorboard_browser_check.py where that host cannot be reached: every chart draws its data as
// a plain HTML table, so the page's text (run, steps, operator names) can be checked.
(function () {
  function DataTable(spec) {
    this.cols = [];
    this.rows = [];
    if (spec && spec.cols) {
      this.cols = spec.cols.slice();
      this.rows = (spec.rows || []).map(function (r) { return r.c.map(function (c) { return c && c.v; }); });
    }
  }
  DataTable.prototype.addColumn = function (c, label) {
    this.cols.push(typeof c === 'string' ? { type: c, label: label || '' } : c);
    return this.cols.length - 1;
  };
  DataTable.prototype.addRows = function (rows) {
    if (typeof rows === 'number') { for (var i = 0; i < rows; i++) this.rows.push([]); return; }
    for (var j = 0; j < rows.length; j++) this.rows.push(rows[j].slice());
  };
  DataTable.prototype.addRow = function (r) { this.rows.push((r || []).slice()); return this.rows.length - 1; };
  DataTable.prototype.getNumberOfRows = function () { return this.rows.length; };
  DataTable.prototype.getNumberOfColumns = function () { return this.cols.length; };
  DataTable.prototype.getValue = function (r, c) { var v = this.rows[r][c]; return v && v.v !== undefined ? v.v : v; };
  DataTable.prototype.setCell = function (r, c, v) { this.rows[r][c] = v; };
  DataTable.prototype.setValue = DataTable.prototype.setCell;
  DataTable.prototype.setProperty = function () {};  // cell styles: nothing to draw
  DataTable.prototype.getColumnLabel = function (c) { return this.cols[c].label || ''; };
  DataTable.prototype.getColumnRole = function (c) { return this.cols[c].role || ''; };

  function Chart(el) { this.el = el; }
  Chart.prototype.draw = function (data) {
    var html = '<table class="charts-standin"><tr>';
    var keep = [];
    for (var c = 0; c < data.cols.length; c++) {
      if (data.cols[c].role) continue;  // tooltips and styles are not data
      keep.push(c);
      html += '<th>' + (data.cols[c].label || data.cols[c].id || '') + '</th>';
    }
    html += '</tr>';
    for (var r = 0; r < data.rows.length; r++) {
      html += '<tr>';
      for (var k = 0; k < keep.length; k++) {
        var v = data.rows[r][keep[k]];
        if (v && v.f !== undefined) v = v.f; else if (v && v.v !== undefined) v = v.v;
        html += '<td>' + (v === null || v === undefined ? '' : String(v)) + '</td>';
      }
      html += '</tr>';
    }
    this.el.innerHTML = html + '</table>';
  };
  Chart.prototype.getSelection = function () { return []; };
  Chart.prototype.getChartLayoutInterface = function () {  // a zero-sized chart area
    return {
      getChartAreaBoundingBox: function () { return { left: 0, top: 0, width: 0, height: 0 }; },
      getHAxisValue: function () { return 0; },
      getVAxisValue: function () { return 0; },
      getXLocation: function () { return 0; },
      getYLocation: function () { return 0; },
    };
  };
  Chart.prototype.setSelection = function () {};
  Chart.prototype.clearChart = function () { this.el.innerHTML = ''; };

  var names = ['ColumnChart', 'ComboChart', 'LineChart', 'PieChart', 'SteppedAreaChart', 'Table', 'Timeline',
               'BarChart', 'AreaChart'];
  var viz = {
    DataTable: DataTable,
    arrayToDataTable: function (rows) {
      var t = new DataTable();
      rows[0].forEach(function (h) { t.addColumn(typeof h === 'object' ? h : { type: 'string', label: h }); });
      t.addRows(rows.slice(1));
      return t;
    },
    events: { addListener: function () { return {}; }, removeListener: function () {} },
  };
  names.forEach(function (n) { viz[n] = function (el) { Chart.call(this, el); }; viz[n].prototype = Chart.prototype; });
  window.google = window.google || {};
  window.google.visualization = viz;
  window.google.charts = {
    load: function () { return Promise.resolve(); },
    setOnLoadCallback: function (cb) { setTimeout(cb, 0); },
  };
})();
