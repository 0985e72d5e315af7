// hearth moment picture script (templates/moment.js): the SVG of `hearth heatmap --moment T -o
// moment.svg` is complete without a script (each group band's tooltip is its head line); this
// file exists because every picture kind embeds one. Never contains the CDATA terminator.
